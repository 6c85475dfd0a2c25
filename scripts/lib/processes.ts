/** Child processes the demo starts and stops: output to a log file, readiness by HTTP, stop by signal. */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, openSync } from "node:fs";
import { dirname } from "node:path";
import { down, status, type ServiceName } from "@sfbench/services";

export interface Started {
  name: string;
  child: ChildProcess;
  log: string;
}

export function startLogged(name: string, cmd: string, args: string[], opts: { cwd: string; log: string; env?: Record<string, string> }): Started {
  mkdirSync(dirname(opts.log), { recursive: true });
  const fd = openSync(opts.log, "a");
  const child = spawn(cmd, args, { cwd: opts.cwd, env: { ...process.env, ...opts.env }, stdio: ["ignore", fd, fd], detached: true });
  return { name, child, log: opts.log };
}

export async function waitHttp(url: string, timeoutMs: number, exited: () => boolean): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (performance.now() < deadline) {
    if (exited()) throw new Error(`the process serving ${url} exited`);
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(2000) });
      if (res.status < 500) return;
    } catch {
      // not yet
    }
    await new Promise((r) => setTimeout(r, 300));
  }
  throw new Error(`${url} did not answer within ${timeoutMs / 1000} s`);
}

/**
 * GET a JSON document, retrying network errors for up to `retryMs`: a
 * keep-alive socket the server closed while the caller was busy (the demo
 * blocks on `sfbench submit`) fails one fetch with "other side closed"; that
 * must not end a demo whose runs are fine. HTTP errors are not retried.
 */
export async function getJson<T>(url: string, retryMs = 30_000): Promise<T> {
  const deadline = performance.now() + retryMs;
  for (;;) {
    let res: Response;
    try {
      res = await fetch(url, { signal: AbortSignal.timeout(10_000) });
    } catch (e) {
      const err = e as Error & { cause?: Error };
      if (performance.now() > deadline) throw new Error(`GET ${url} failed: ${err.message}${err.cause ? ` (${err.cause.message})` : ""}`);
      await new Promise((r) => setTimeout(r, 500));
      continue;
    }
    if (!res.ok) throw new Error(`GET ${url} answered ${res.status}: ${(await res.text()).slice(0, 300)}`);
    return (await res.json()) as T;
  }
}

/**
 * SIGTERM to the process group (with `leaderOnly`, to the process alone, so
 * that it stops its own children in order), SIGKILL to the group after `graceMs`.
 */
export async function stop(p: Started, graceMs = 15_000, opts: { leaderOnly?: boolean } = {}): Promise<void> {
  if (p.child.exitCode !== null || p.child.signalCode !== null) return;
  const exited = new Promise((r) => p.child.once("exit", r));
  try {
    process.kill(opts.leaderOnly ? p.child.pid! : -p.child.pid!, "SIGTERM");
  } catch {
    return;
  }
  const timer = setTimeout(() => {
    try {
      process.kill(-p.child.pid!, "SIGKILL");
    } catch {
      // gone
    }
  }, graceMs);
  await exited;
  clearTimeout(timer);
}

/** The servers (k6 is a binary, not a server) the demo may leave running only when they were up before it. */
const SERVERS: ServiceName[] = ["postgres", "redis", "kafka"];

export async function serversUp(): Promise<Set<ServiceName>> {
  return new Set((await status(SERVERS)).filter((s) => s.running).map((s) => s.name));
}

/**
 * Stops what a command started, in reverse order: a process named "worker"
 * alone and with a minute's grace (it stops its own k6 and target and stores
 * the interrupted run while the database is still up), the others with their
 * process group; then every server that is up now but was not in `before`,
 * also those a child started (the worker starts Kafka for tracing).
 */
export async function stopAll(started: Started[], before: Set<ServiceName> | undefined, say: (line: string) => void): Promise<ServiceName[]> {
  for (const p of [...started].reverse()) await stop(p, p.name === "worker" ? 60_000 : 15_000, { leaderOnly: p.name === "worker" });
  if (!before) return [];
  const servers = (await status(SERVERS)).filter((s) => s.running && !before.has(s.name)).map((s) => s.name);
  if (servers.length) {
    say(`stopping the services the demo and its worker started: ${servers.join(", ")}`);
    await down(servers);
  }
  return servers;
}
