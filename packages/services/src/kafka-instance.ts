/**
 * A private Kafka broker for one target, beside its private PostgreSQL: a
 * system whose data path runs through Kafka (StateFun's ingress and egress)
 * pays for its broker's CPU in its cost, and the broker leaves with the
 * target, so no run leaves a loaded broker behind for the next benchmark.
 * The shared broker stays sfbench's own (span lines, the worker).
 *
 * Same jars as the shared broker; single-node KRaft on two free loopback
 * ports; its log and data under `dir`.
 *
 * For a run from an image (`netns`), the broker serves inside the run's
 * network namespace on Kafka's own ports (the namespace has the whole range
 * to itself) as the services' unprivileged system user; sfbench asks it for
 * metadata from inside that namespace too, since the host's loopback is not
 * the run's.
 */
import { spawn } from "node:child_process";
import { closeSync, existsSync, openSync, writeFileSync } from "node:fs";
import { mkdir, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { HOST } from "./env.ts";
import { answersMetadata, brokerProperties, clusterId, KAFKA_LOG4J, kafkaJars } from "./kafka.ts";
import { withLock } from "./lock.ts";
import { postgresUser } from "./postgres-user.ts";
import { freePort } from "@sfbench/core/ports";
import { isAlive, readPid, run, stopPid, tail, waitFor } from "./process.ts";

export interface KafkaInstance {
  /** the broker's JVM */
  pid: number;
  port: number;
  brokers: string[];
  dir: string;
  log: string;
  version: string;
}

export interface KafkaInstanceOptions {
  /** the instance's directory (its `data/`, `server.properties`, `kafka.log`, `kafka.pid`) */
  dir: string;
  /** keep the log of an earlier start (a restart after a kill); default: start empty */
  keepData?: boolean;
  /** the CPUs the broker runs on (taskset -c); default: the caller's */
  cpus?: string;
  /** `/proc/<pid>/ns/net` of a run's pod: the broker serves there, on 127.0.0.1:9092 (root only) */
  netns?: string;
  onProgress?: (message: string) => void;
}

/** Kafka's own ports, for a broker alone in a run's namespace. */
const NETNS_PORTS = [9092, 9093] as const;

const servicesDir = fileURLToPath(new URL("..", import.meta.url));

/** Whether the broker answers a metadata request asked from inside `netns` (a child entered there asks). */
export async function answersMetadataIn(netns: string, brokers: string[]): Promise<boolean> {
  const ask = `import { answersMetadata } from ${JSON.stringify(fileURLToPath(new URL("./kafka.ts", import.meta.url)))};
process.exit((await answersMetadata(${JSON.stringify(brokers)})) ? 0 : 1);`;
  const argv = ["nsenter", `--net=${netns}`, "--", process.execPath, "--import", "tsx", "--input-type=module", "-e", ask];
  return run(argv[0]!, argv.slice(1), { cwd: servicesDir, timeoutMs: 20_000 }).then(
    () => true,
    () => false,
  );
}

const filesOf = (dir: string) => ({
  data: path.join(dir, "data"),
  props: path.join(dir, "server.properties"),
  log4j: path.join(dir, "log4j2.properties"),
  log: path.join(dir, "kafka.log"),
  pid: path.join(dir, "kafka.pid"),
});

/** Starts the target's broker in `dir` and returns it once it answers metadata requests. */
export async function startKafkaInstance(opts: KafkaInstanceOptions): Promise<KafkaInstance> {
  const dir = path.resolve(opts.dir);
  const f = filesOf(dir);
  await stopKafkaInstance(dir);
  if (!opts.keepData) await rm(dir, { recursive: true, force: true });
  await mkdir(f.data, { recursive: true });
  const { java, libsDir, version } = await withLock("kafka", 600_000, () => kafkaJars((m) => opts.onProgress?.(m)));
  const [port, controllerPort] = opts.netns ? NETNS_PORTS : [await freePort(), await freePort()];
  const props = Object.entries(brokerProperties(port, controllerPort, f.data)).map(([k, v]) => `${k}=${v}`);
  await writeFile(f.props, `# written by @sfbench/services for one target\n${props.join("\n")}\n`);
  await writeFile(f.log4j, `${KAFKA_LOG4J}\n`);
  if (!existsSync(path.join(f.data, "meta.properties"))) {
    opts.onProgress?.("formatting the KRaft log directory");
    await run(java, ["-cp", `${libsDir}/*`, "kafka.tools.StorageTool", "format", "-t", clusterId(), "-c", f.props], { cwd: dir, timeoutMs: 120_000 });
  }
  let entered: string[] = [];
  if (opts.netns) {
    // root may enter the namespace; the broker itself runs as nobody special, owner of its directory only
    const user = await postgresUser(dir, [libsDir]);
    if (!user) throw new Error("a Kafka inside a run's network namespace needs root (only root may enter the namespace)");
    entered = ["nsenter", `--net=${opts.netns}`, `--setgid=${user.gid}`, `--setuid=${user.uid}`, "--"];
  }
  opts.onProgress?.(`starting on ${HOST}:${port} (controller ${controllerPort})${opts.netns ? " in the run's network" : ""}`);
  const out = openSync(f.log, "a");
  const java_ = ["-Xmx512m", `-Dlog4j2.configurationFile=${f.log4j}`, "-cp", `${libsDir}/*`, "kafka.Kafka", f.props];
  const command = [...entered, java, ...java_];
  const argv = opts.cpus ? ["taskset", "-c", opts.cpus, ...command] : command;
  // a session of its own: it outlives the command that started the target, like the target's PostgreSQL
  const child = spawn(argv[0]!, argv.slice(1), { cwd: dir, detached: true, stdio: ["ignore", out, out] });
  child.once("error", () => undefined);
  closeSync(out);
  child.unref();
  if (child.pid === undefined) throw new Error(`could not start ${java} for the target's Kafka`);
  writeFileSync(f.pid, String(child.pid));
  const brokers = [`${HOST}:${port}`];
  const answers = () => (opts.netns ? answersMetadataIn(opts.netns, brokers) : answersMetadata(brokers));
  const answered = await waitFor(async () => ((await answers()) ? true : isAlive(child.pid!, f.props) ? undefined : false), {
    timeoutMs: 90_000,
    describe: async () => `the target's Kafka does not answer on ${brokers[0]} after 90 s; log ${f.log}:\n${await tail(f.log)}`,
  });
  if (!answered) throw new Error(`the target's Kafka exited during startup; log ${f.log}:\n${await tail(f.log, 30)}`);
  return { pid: child.pid, port, brokers, dir, log: f.log, version };
}

/** Stops the broker of `dir` and waits until it is gone. Idempotent: returns whether one was running. */
export async function stopKafkaInstance(dir: string): Promise<boolean> {
  const f = filesOf(path.resolve(dir));
  const pid = await readPid(f.pid);
  if (pid === undefined || !isAlive(pid, f.props)) return false;
  await stopPid(pid, { command: f.props, timeoutMs: 30_000 });
  return true;
}
