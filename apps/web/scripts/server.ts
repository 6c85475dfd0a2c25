/**
 * Builds the portal (once: skipped while .next is newer than every source it
 * is made from) and starts `next start` on a free loopback port against a given
 * database. Used by the browser test and by `npm run bench:web`.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { freePort } from "@sfbench/services";

export const appDir = fileURLToPath(new URL("..", import.meta.url));
const repoRoot = path.resolve(appDir, "../..");
const nextBin = path.join(repoRoot, "node_modules", "next", "dist", "bin", "next");
const buildId = path.join(appDir, ".next", "BUILD_ID");

/** What the build is made of: the app, the workspace packages it bundles, the lockfile. */
const SOURCES = [
  path.join(appDir, "src"),
  path.join(appDir, "next.config.ts"),
  path.join(appDir, "package.json"),
  ...["core", "db", "services", "workloads"].map((p) => path.join(repoRoot, "packages", p, "src")),
  path.join(repoRoot, "package-lock.json"),
];

function newestMtime(target: string): number {
  if (!existsSync(target)) return 0;
  const info = statSync(target);
  if (!info.isDirectory()) return info.mtimeMs;
  let newest = info.mtimeMs;
  for (const entry of readdirSync(target, { withFileTypes: true })) {
    if (entry.name === "node_modules" || entry.name.startsWith(".")) continue;
    newest = Math.max(newest, newestMtime(path.join(target, entry.name)));
  }
  return newest;
}

export function buildIsFresh(): boolean {
  if (!existsSync(buildId)) return false;
  const built = statSync(buildId).mtimeMs;
  return SOURCES.every((s) => newestMtime(s) < built);
}

/** `next build --webpack` unless the existing build is fresh; returns whether it built. */
export function ensureBuild(log: (line: string) => void = () => undefined): boolean {
  if (buildIsFresh()) return false;
  log("building the portal (next build)");
  const result = spawnSync(process.execPath, [nextBin, "build", "--webpack"], {
    cwd: appDir,
    env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1", SFBENCH_SKIP_BUILD_TYPECHECK: "1" },
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  });
  if (result.status !== 0) throw new Error(`next build failed (exit ${result.status}):\n${(result.stdout + result.stderr).slice(-6000)}`);
  return true;
}

export interface RunningServer {
  url: string;
  process: ChildProcess;
  /** what the server printed (for failure messages) */
  output(): string;
  stop(): Promise<void>;
}

/** `next start` on 127.0.0.1:<port> (a free one unless given) with DATABASE_URL; resolves once it answers HTTP. */
export async function startServer(opts: { databaseUrl: string; env?: Record<string, string>; port?: number }): Promise<RunningServer> {
  const port = opts.port ?? (await freePort());
  const url = `http://127.0.0.1:${port}`;
  // idle connections stay open for a minute, not Node's 5 s: a client whose event loop was blocked longer (the demo's and
  // the tests' `npm run operator`, run synchronously, on a loaded machine) reuses its pooled socket before its own idle
  // timer can drop it, and a server that closed that socket meanwhile fails the request with "other side closed"
  const child = spawn(process.execPath, [nextBin, "start", "--hostname", "127.0.0.1", "--port", String(port), "--keepAliveTimeout", "60000"], {
    cwd: appDir,
    env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1", NODE_ENV: "production", DATABASE_URL: opts.databaseUrl, ...opts.env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const keep = (d: Buffer) => (output = (output + d.toString()).slice(-20_000));
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill("SIGTERM");
      await Promise.race([exited, sleep(5_000).then(() => child.kill("SIGKILL"))]);
    }
    await exited;
  };
  const deadline = performance.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`next start exited (${child.exitCode}):\n${output}`);
    try {
      const res = await fetch(`${url}/docs/openapi.json`);
      if (res.ok) break;
    } catch {
      // not listening yet
    }
    if (performance.now() > deadline) {
      await stop();
      throw new Error(`next start did not answer within 60 s:\n${output}`);
    }
    await sleep(200);
  }
  return { url, process: child, output: () => output, stop };
}
