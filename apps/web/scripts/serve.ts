/**
 * npm run serve -w @sfbench/web [-- --port 3000] [--hostname 127.0.0.1] [--detach | --stop]
 *
 * The portal on http://127.0.0.1:<port> for people (the demo ends with it);
 * on another address (--hostname 0.0.0.0) only with SFBENCH_PUBLIC_ORIGIN set,
 * checked before anything starts (src/server/listen-check.ts):
 * builds when the build is stale, resolves the database (DATABASE_URL, or the
 * local `sfbench` database, started when needed), then runs `next start`.
 * In the foreground by default; --detach leaves it running in the background
 * (pid and log in .sfbench/web/) and returns once it answers; --stop ends a
 * detached one.
 */
import { spawn } from "node:child_process";
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { parseArgs } from "node:util";
import { closeDb, ensureDatabase, migrate } from "@sfbench/db";
import { paths } from "@sfbench/services";
import { env as portalEnv } from "../src/env.ts";
import { listenProblem } from "../src/server/listen-check.ts";
import { appDir, ensureBuild } from "./server.ts";

const { values } = parseArgs({
  options: {
    port: { type: "string", default: "3000" },
    hostname: { type: "string", default: "127.0.0.1" },
    detach: { type: "boolean", default: false },
    stop: { type: "boolean", default: false },
  },
});
const port = Number(values.port);
if (!Number.isInteger(port) || port < 1024 || port > 65535) {
  process.stderr.write(`serve: --port must be 1024-65535, got "${values.port}"\n`);
  process.exit(2);
}
const hostname = values.hostname;
const refused = listenProblem(hostname, portalEnv.SFBENCH_PUBLIC_ORIGIN);
if (refused) {
  process.stderr.write(`serve: ${refused}\n`);
  process.exit(2);
}
const dir = path.join(paths.home, "web");
const pidFile = path.join(dir, `web-${port}.pid`);
const logFile = path.join(dir, `web-${port}.log`);
// every interface holds loopback too: the health check asks there
const url = `http://${["0.0.0.0", "::", "[::]"].includes(hostname) ? "127.0.0.1" : hostname.includes(":") && !hostname.startsWith("[") ? `[${hostname}]` : hostname}:${port}`;
const log = (line: string) => process.stdout.write(`${line}\n`);

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};
const runningPid = () => (existsSync(pidFile) ? Number(readFileSync(pidFile, "utf8")) : undefined);

if (values.stop) {
  const pid = runningPid();
  if (pid && alive(pid)) {
    process.kill(-pid, "SIGTERM");
    for (let i = 0; i < 50 && alive(pid); i++) await sleep(100);
    log(`stopped the portal on ${url} (pid ${pid})`);
  } else log(`no portal running on ${url}`);
  rmSync(pidFile, { force: true });
  process.exit(0);
}

const existing = runningPid();
if (existing && alive(existing)) {
  log(`the portal is already running on ${url} (pid ${existing}; stop it with --stop)`);
  process.exit(0);
}

const databaseUrl = await ensureDatabase({ onProgress: log });
await migrate(databaseUrl);
await closeDb();
if (ensureBuild(log)) log("built the portal");

const nextBin = path.join(appDir, "../../node_modules/next/dist/bin/next");
const env = { ...process.env, NODE_ENV: "production" as const, NEXT_TELEMETRY_DISABLED: "1", DATABASE_URL: databaseUrl };
const args = [nextBin, "start", "--hostname", hostname, "--port", String(port)];

if (!values.detach) {
  log(`the portal: ${url}`);
  const child = spawn(process.execPath, args, { cwd: appDir, env, stdio: "inherit" });
  for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => child.kill(signal));
  child.on("exit", (code) => process.exit(code ?? 0));
} else {
  mkdirSync(dir, { recursive: true });
  const out = openSync(logFile, "a");
  const child = spawn(process.execPath, args, { cwd: appDir, env, stdio: ["ignore", out, out], detached: true });
  closeSync(out);
  child.unref();
  writeFileSync(pidFile, String(child.pid));
  const deadline = performance.now() + 60_000;
  for (;;) {
    if (
      await fetch(`${url}/docs/openapi.json`).then(
        (r) => r.ok,
        () => false,
      )
    )
      break;
    if (!alive(child.pid!) || performance.now() > deadline) {
      process.stderr.write(`serve: the portal did not start; see ${logFile}\n`);
      process.exit(3);
    }
    await sleep(200);
  }
  log(`the portal is running on ${url} (pid ${child.pid}, log ${logFile}); stop it with: npm run serve -w @sfbench/web -- --port ${port} --stop`);
}
