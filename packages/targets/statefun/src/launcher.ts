/**
 * The target's one start command: opens the deployment's Kafka topics, then
 * starts the StateFun JVM and the HTTP gateway as its children. They stay in
 * the launcher's process group, so the cost sampler counts all three and the
 * provider's SIGTERM to the group reaches every one. If either child dies, the
 * launcher stops the other and exits 1 (the target is down); on SIGTERM it
 * waits for both and exits 0, leaving the deployment (its topics, its
 * checkpoints) for a start on the same data directory: a restart, or a
 * campaign's copy of the target's populated state.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { openDeployment } from "./deployment.ts";
import { childEnv, readLauncherEnv, type LauncherEnv } from "./env.ts";

const log = (message: string) => process.stderr.write(`statefun launcher: ${message}\n`);

/** Java 17 closes the JDK internals Flink 1.16 and Kryo reach into (Flink's own list for Java 17). */
const JAVA_17_OPENS = [
  "--add-exports=java.base/sun.net.util=ALL-UNNAMED",
  "--add-exports=java.rmi/sun.rmi.registry=ALL-UNNAMED",
  ...[
    "java.lang",
    "java.net",
    "java.io",
    "java.nio",
    "sun.nio.ch",
    "java.lang.reflect",
    "java.text",
    "java.time",
    "java.util",
    "java.util.concurrent",
    "java.util.concurrent.atomic",
    "java.util.concurrent.locks",
  ].map((p) => `--add-opens=java.base/${p}=ALL-UNNAMED`),
];

function environment(): LauncherEnv {
  try {
    return readLauncherEnv();
  } catch (e) {
    log((e as Error).message);
    process.exit(2);
  }
}
const env = environment();
const jar = join(env.SFBENCH_BUILD_DIR, "statefun-app.jar");
if (!existsSync(jar)) {
  log(`${jar} is missing: build the job first with \`npx sfbench target build statefun\``);
  process.exit(3);
}

async function open(): Promise<Awaited<ReturnType<typeof openDeployment>>> {
  try {
    return await openDeployment(env.SFBENCH_DATA_DIR, env.KAFKA_BROKERS, env.STATEFUN_PARALLELISM);
  } catch (e) {
    log(`could not create the deployment's topics on Kafka ${env.KAFKA_BROKERS}: ${(e as Error).message}`);
    process.exit(3);
  }
}
const { deployment, restored } = await open();
log(`${restored ? "restarting deployment" : "new deployment"} ${deployment.id}: requests on ${deployment.ingressTopic}, answers on ${deployment.egressTopic}`);
const topics = {
  STATEFUN_INGRESS_TOPIC: deployment.ingressTopic,
  STATEFUN_EGRESS_TOPIC: deployment.egressTopic,
  STATEFUN_CONSUMER_GROUP: deployment.consumerGroup,
};

const children = new Map<string, ChildProcess>();
let stopping = false;

function start(name: string, command: string, args: string[]): void {
  // not detached: the children stay in the launcher's process group
  const child = spawn(command, args, { env: childEnv(topics), stdio: ["ignore", "inherit", "inherit"] });
  children.set(name, child);
  child.on("error", (e) => {
    log(`could not start the ${name}: ${e.message}`);
    void fail();
  });
  child.on("exit", (code, signal) => {
    children.delete(name);
    if (stopping) return;
    log(`the ${name} exited (${code !== null ? `code ${code}` : `signal ${signal}`}); stopping the target`);
    void fail();
  });
}

/** Stops the remaining children: SIGTERM, SIGKILL after `graceMs`. */
async function stopChildren(graceMs: number): Promise<void> {
  for (const child of children.values()) child.kill("SIGTERM");
  const deadline = performance.now() + graceMs;
  while (children.size > 0 && performance.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  for (const child of children.values()) child.kill("SIGKILL");
}

async function fail(): Promise<void> {
  if (stopping) return;
  stopping = true;
  await stopChildren(5000);
  process.exit(1);
}

for (const signal of ["SIGTERM", "SIGINT"] as const) {
  process.once(signal, () => {
    if (stopping) return;
    stopping = true;
    void (async () => {
      await stopChildren(8000);
      process.exit(0);
    })();
  });
}

// Flink's scratch folders (blobs, io, netty shuffle) in the run's data directory, not the machine's /tmp:
// a killed JVM leaves them behind, and the next fresh start removes the data directory
const scratch = join(env.SFBENCH_DATA_DIR, "tmp");
mkdirSync(scratch, { recursive: true });
start("StateFun JVM", "java", [
  `-Xmx${env.STATEFUN_JVM_HEAP}`,
  `-Djava.io.tmpdir=${scratch}`,
  "-XX:+ExitOnOutOfMemoryError",
  ...JAVA_17_OPENS,
  "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
  "-Dorg.slf4j.simpleLogger.showDateTime=true",
  "-Dorg.slf4j.simpleLogger.dateTimeFormat=yyyy-MM-dd'T'HH:mm:ss.SSSZ",
  "-Dorg.slf4j.simpleLogger.log.org.apache.flink.runtime.webmonitor.WebMonitorUtils=error",
  "-Dorg.slf4j.simpleLogger.log.org.apache.flink.streaming.connectors.kafka.FlinkKafkaProducer=error",
  "-cp",
  `${jar}:${join(env.SFBENCH_BUILD_DIR, "lib", "*")}`,
  "dev.sfbench.statefun.Main",
]);
start("gateway", process.execPath, ["--import", "tsx", join(import.meta.dirname, "gateway", "main.ts")]);
