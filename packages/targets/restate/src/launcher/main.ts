/**
 * The target's one local command: starts the service endpoint, the Restate
 * server and, once the deployment is registered and the ingress serves every
 * object, the gateway on PORT, whose /health then answers 200. Restate's own
 * ports and the endpoint's are chosen free on 127.0.0.1. If any child exits,
 * the launcher stops the others and exits 1; on SIGTERM/SIGINT it stops them
 * and exits 0 once all are gone.
 */
import { mkdirSync } from "node:fs";
import { createRequire } from "node:module";
import { arch, platform } from "node:os";
import { fileURLToPath } from "node:url";
import { inheritedEnv, readLauncherEnv } from "../env.ts";
import { Children } from "./children.ts";
import { choosePorts } from "./ports.ts";
import { adminHealthy, ingressServesAll, listening, registerDeployment, waitFor } from "./register.ts";
import { writeRestateConfig } from "./restate-config.ts";

const env = readLauncherEnv();
const log = (message: string) => console.error(`[restate launcher] ${message}`);

/** The restate-server binary of @restatedev/restate-server's platform package (no Node wrapper process in between). */
function restateServerBinary(): string {
  const require = createRequire(import.meta.url);
  const pkg = `@restatedev/restate-server-${platform()}-${arch()}`;
  try {
    return require.resolve(`${pkg}/bin/restate-server`);
  } catch {
    throw new Error(`${pkg} is not installed: run npm install (Restate ships the server for linux and darwin, x64 and arm64)`);
  }
}

const entry = (path: string) => fileURLToPath(new URL(path, import.meta.url));
const tsNode = (path: string) => ["--import", "tsx", entry(path)];

let exitCode = 0;
let shuttingDown: Promise<void> | undefined;
const shutdown = (code: number) => {
  exitCode = Math.max(exitCode, code);
  shuttingDown ??= children.stop().then(() => process.exit(exitCode));
  return shuttingDown;
};
const children = new Children((child) => {
  log(`${child.name} exited with ${child.exited}; stopping the target`);
  void shutdown(1);
});
for (const signal of ["SIGTERM", "SIGINT"] as const)
  process.once(signal, () => {
    // a target that stops in the middle of a test says here whether it was told to
    log(`${signal} received; stopping the target`);
    void shutdown(0);
  });

try {
  mkdirSync(env.SFBENCH_DATA_DIR, { recursive: true });
  const ports = await choosePorts(env.SFBENCH_DATA_DIR, [env.PORT]);
  const config = writeRestateConfig(env.SFBENCH_DATA_DIR, ports, env.SFBENCH_CPUS);
  const adminUrl = `http://127.0.0.1:${ports.admin}`;
  const ingressUrl = `http://127.0.0.1:${ports.ingress}`;
  const serviceUri = `http://127.0.0.1:${ports.service}/`;
  const trace = env.SFBENCH_TRACE ? "1" : "0";
  const base = inheritedEnv();
  log(`ports: ingress ${ports.ingress}, admin ${ports.admin}, fabric ${ports.fabric}, endpoint ${ports.service}; data in ${env.SFBENCH_DATA_DIR}`);

  children.start("service endpoint", process.execPath, tsNode("../app/main.ts"), {
    ...base,
    SERVICE_PORT: String(ports.service),
    SFBENCH_TRACE: trace,
    RESTATE_LOGGING: "WARN",
  });
  children.start("restate-server", restateServerBinary(), ["--config-file", config, "--no-logo"], base);

  const deadline = performance.now() + env.RESTATE_STARTUP_TIMEOUT * 1000;
  const aborted = () => children.firstExit();
  await waitFor("the service endpoint", deadline, () => listening(ports.service), aborted);
  await waitFor("the Restate admin API", deadline, () => adminHealthy(adminUrl), aborted);
  await waitFor(
    "the deployment to register",
    deadline,
    async () => {
      try {
        log(await registerDeployment(adminUrl, serviceUri));
        return true;
      } catch (err) {
        // the admin API may answer before the cluster can take a deployment
        if (performance.now() > deadline - 1000) throw err;
        return false;
      }
    },
    aborted,
  );
  await waitFor("the ingress to serve every object", deadline, () => ingressServesAll(ingressUrl), aborted);
  log("the ingress serves every object; starting the gateway");

  children.start("gateway", process.execPath, tsNode("../gateway/main.ts"), {
    ...base,
    PORT: String(env.PORT),
    HOST: env.HOST,
    RESTATE_INGRESS_URL: ingressUrl,
    SFBENCH_TRACE: trace,
    LOG_LEVEL: "warn",
  });
} catch (err) {
  // a SIGTERM during start-up is a stop, not a failure
  if (!shuttingDown) {
    log(`start failed: ${(err as Error).message}`);
    await shutdown(1);
  }
}
