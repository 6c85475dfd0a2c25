import { spawn } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { closeSync, existsSync, openSync, readdirSync, writeFileSync } from "node:fs";
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Kafka, logLevel } from "kafkajs";
import { env, HOST, paths, ports } from "./env.ts";
import { withLock } from "./lock.ts";
import { findExecutable, isAlive, livePid, portAnswers, run, stopPid, tail, waitFor } from "./process.ts";
import { MissingPrerequisiteError, type Progress, type Service, type ServiceStatus } from "./types.ts";

/** Declares the broker jars (org.apache.kafka:kafka_2.13 + a log4j2 binding); Maven resolves the rest. */
const pom = fileURLToPath(new URL("../kafka/pom.xml", import.meta.url));

const dir = path.join(paths.home, "kafka");
const libsDir = path.join(dir, "libs");
const libsMarker = path.join(libsDir, ".complete");
const dataDir = path.join(dir, "data");
const propsFile = path.join(dir, "server.properties");
const log4jFile = path.join(dir, "log4j2.properties");
const logFile = path.join(dir, "kafka.log");
const pidFile = path.join(dir, "kafka.pid");

export function kafkaBrokers(): string[] {
  return [`${HOST}:${ports.kafka}`];
}

/** java (always) and mvn (to fetch the jars once), or a MissingPrerequisiteError naming what to install. */
export function findKafkaTools({ pathEnv, needMaven }: { pathEnv: string; needMaven: boolean }) {
  const java = findExecutable("java", pathEnv);
  const mvn = needMaven ? findExecutable("mvn", pathEnv) : undefined;
  const missing = [!java && "java (openjdk-17-jre-headless)", needMaven && !mvn && "mvn (maven)"].filter(Boolean);
  if (!java || missing.length > 0) {
    throw new MissingPrerequisiteError(`Kafka needs ${missing.join(" and ")} on PATH: run \`sudo apt-get install -y openjdk-17-jre-headless maven\``);
  }
  return { java, mvn };
}

/**
 * Answers a metadata request and finds a group coordinator (which creates __consumer_offsets
 * on a fresh broker), so the first consumer after up() does not hit "coordinator not available".
 */
export async function answersMetadata(brokers: string[] = kafkaBrokers()): Promise<boolean> {
  const admin = new Kafka({
    clientId: "sfbench-services",
    brokers,
    logLevel: logLevel.NOTHING,
    connectionTimeout: 1_000,
    requestTimeout: 3_000,
    retry: { retries: 0 },
  }).admin();
  try {
    await admin.connect();
    await admin.listTopics();
    await admin.describeGroups(["sfbench-services-ready"]);
    return true;
  } catch {
    return false;
  } finally {
    await admin.disconnect().catch(() => undefined);
  }
}

/** The Kafka version of the fetched jars (kafka_2.13-<version>.jar). */
function kafkaVersion(): string {
  const files = existsSync(libsDir) ? readdirSync(libsDir) : [];
  return files.map((f) => /^kafka_2\.13-(.+)\.jar$/.exec(f)?.[1]).find(Boolean) ?? "?";
}

async function status(): Promise<ServiceStatus> {
  const pid = await livePid(pidFile, propsFile);
  if (pid !== undefined && (await answersMetadata())) {
    return {
      name: "kafka",
      running: true,
      url: kafkaBrokers().join(","),
      pid,
      detail: `Kafka ${kafkaVersion()} (KRaft, single node) on ${HOST}:${ports.kafka}, log ${logFile}`,
    };
  }
  const foreign = pid === undefined && (await portAnswers(ports.kafka));
  const detail = foreign
    ? `${HOST}:${ports.kafka} is in use by a process sfbench did not start; set SFBENCH_KAFKA_PORT to a free port`
    : pid !== undefined
      ? `process ${pid} is running but does not answer metadata requests yet (log ${logFile})`
      : `not running (log ${logFile})`;
  return { name: "kafka", running: false, pid, detail };
}

/** For waitFor: true once the broker answers, false once process `pid` has exited. */
const answeredOrGone = (pid: number) => async () => ((await answersMetadata()) ? true : isAlive(pid, propsFile) ? undefined : false);

async function up(progress: Progress): Promise<ServiceStatus> {
  return withLock("kafka", 600_000, async () => {
    const pid = await livePid(pidFile, propsFile);
    if (pid !== undefined) {
      // Ours: give a busy broker a moment before deciding it hangs and replacing it.
      const answered = await waitFor(answeredOrGone(pid), { timeoutMs: 15_000, describe: () => "" }).catch(() => false);
      if (answered) {
        progress("already running");
        return status();
      }
      if (isAlive(pid, propsFile)) await stopPid(pid, { command: propsFile, timeoutMs: 30_000 });
    }
    for (const port of [ports.kafka, ports.kafkaController]) {
      if (await portAnswers(port)) {
        throw new Error(
          `${HOST}:${port} is in use by a process sfbench did not start; set SFBENCH_KAFKA_PORT to a free port (the controller uses the next one)`,
        );
      }
    }
    const { java } = await kafkaJars(progress);
    await writeConfig();
    if (!existsSync(path.join(dataDir, "meta.properties"))) await format(java, progress);
    progress(`starting on ${HOST}:${ports.kafka} (controller ${ports.kafkaController})`);
    const started = start(java);
    await waitFor(answeredOrGone(started), {
      timeoutMs: 60_000,
      describe: async () => `Kafka does not answer on ${HOST}:${ports.kafka} after 60 s; log ${logFile}:\n${await tail(logFile)}`,
    }).then(async (answered) => {
      if (!answered) throw new Error(`Kafka exited during startup; log ${logFile}:\n${await tail(logFile, 30)}`);
    });
    progress("ready");
    return status();
  });
}

/**
 * java, and the broker's jars under .sfbench/kafka/libs (fetched by Maven once,
 * again when kafka/pom.xml changes). Call under the "kafka" lock: the shared
 * broker and the targets' own brokers use the same jars.
 */
export async function kafkaJars(progress: Progress): Promise<{ java: string; libsDir: string; version: string }> {
  const pomHash = createHash("sha256")
    .update(await readFile(pom))
    .digest("hex");
  const haveLibs = (await readFile(libsMarker, "utf8").catch(() => "")) === pomHash;
  const { java, mvn } = findKafkaTools({ pathEnv: env.PATH, needMaven: !haveLibs });
  if (!haveLibs && mvn) await fetchJars(mvn, pomHash, progress);
  return { java, libsDir, version: kafkaVersion() };
}

async function fetchJars(mvn: string, pomHash: string, progress: Progress): Promise<void> {
  progress("downloading the Kafka jars from Maven Central (first start only)");
  await rm(libsDir, { recursive: true, force: true });
  const args = ["-q", "-B", "-f", pom, "dependency:copy-dependencies", `-DoutputDirectory=${libsDir}`];
  await run(mvn, args, { timeoutMs: 600_000 });
  await writeFile(libsMarker, pomHash);
}

/** A single-node KRaft broker on HOST:port with its controller on controllerPort, its log in dataDir. */
export function brokerProperties(port: number, controllerPort: number, logDir: string): Record<string, string> {
  const controller = `${HOST}:${controllerPort}`;
  return {
    "process.roles": "broker,controller",
    "node.id": "1",
    "controller.quorum.voters": `1@${controller}`,
    listeners: `PLAINTEXT://${HOST}:${port},CONTROLLER://${controller}`,
    "advertised.listeners": `PLAINTEXT://${HOST}:${port}`,
    "controller.listener.names": "CONTROLLER",
    "listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT",
    "log.dirs": logDir,
    "offsets.topic.replication.factor": "1",
    "transaction.state.log.replication.factor": "1",
    "transaction.state.log.min.isr": "1",
    "group.initial.rebalance.delay.ms": "0",
    "share.coordinator.state.topic.replication.factor": "1",
    "share.coordinator.state.topic.min.isr": "1",
    "num.partitions": "1",
    "auto.create.topics.enable": "true",
  };
}

/** Kafka's own INFO lines, its client library's warnings, to stdout (the broker's log file). */
export const KAFKA_LOG4J = [
  "appender.stdout.type = Console",
  "appender.stdout.name = STDOUT",
  "appender.stdout.layout.type = PatternLayout",
  "appender.stdout.layout.pattern = [%d] %p %m (%c)%n",
  "rootLogger.level = INFO",
  "rootLogger.appenderRef.stdout.ref = STDOUT",
  "logger.clients.name = org.apache.kafka",
  "logger.clients.level = WARN",
].join("\n");

async function writeConfig(): Promise<void> {
  await mkdir(dataDir, { recursive: true });
  const lines = Object.entries(brokerProperties(ports.kafka, ports.kafkaController, dataDir)).map(([key, value]) => `${key}=${value}`);
  await writeFile(propsFile, `# written by @sfbench/services on every start\n${lines.join("\n")}\n`);
  await writeFile(log4jFile, `${KAFKA_LOG4J}\n`);
}

/** A Kafka cluster id: 16 random bytes, base64url, never starting with "-" (as Uuid.randomUuid does). */
export function clusterId(): string {
  for (;;) {
    const id = randomBytes(16).toString("base64url");
    if (!id.startsWith("-")) return id;
  }
}

/** Formats the log dir once; with static controller.quorum.voters no --standalone flag is needed. */
async function format(java: string, progress: Progress): Promise<void> {
  progress("formatting the KRaft log directory");
  const args = ["-cp", `${libsDir}/*`, "kafka.tools.StorageTool", "format", "-t", clusterId(), "-c", propsFile];
  await run(java, args, { cwd: dir, timeoutMs: 120_000 });
}

/** Starts the broker in its own session (so it outlives this process), output appended to kafka.log. */
function start(java: string): number {
  const out = openSync(logFile, "a");
  const args = ["-Xmx512m", `-Dlog4j2.configurationFile=${log4jFile}`, "-cp", `${libsDir}/*`, "kafka.Kafka", propsFile];
  const child = spawn(java, args, { cwd: dir, detached: true, stdio: ["ignore", out, out] });
  child.once("error", () => undefined); // reported below as a missing pid
  closeSync(out);
  child.unref();
  if (child.pid === undefined) throw new Error(`could not start ${java}`);
  writeFileSync(pidFile, String(child.pid));
  return child.pid;
}

async function down(): Promise<void> {
  await withLock("kafka", 600_000, async () => {
    const pid = await livePid(pidFile, propsFile);
    if (pid !== undefined) await stopPid(pid, { command: propsFile, timeoutMs: 30_000 });
    await rm(pidFile, { force: true });
  });
}

export const kafka: Service = { up, down, status };
