import { spawn } from "node:child_process";
import { accessSync, closeSync, constants, mkdirSync, openSync, readdirSync, readFileSync, renameSync, statSync, unlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { readFile } from "node:fs/promises";
import net from "node:net";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { HOST } from "./env.ts";

/**
 * The fields of a /proc stat line after the command's parentheses (the
 * command may hold spaces and parentheses): state (R, S, D, Z, X, ...), ppid,
 * pgrp, ...
 */
export function statFields(text: string): { state: string; ppid: number; pgrp: number } {
  const [state = "", ppid, pgrp] = text.slice(text.lastIndexOf(")") + 2).split(" ");
  return { state, ppid: Number(ppid), pgrp: Number(pgrp) };
}

/** A zombie (Z) or dead (X) task: its exit is done, or under way. */
export const exited = (state: string): boolean => state === "Z" || state === "X";

/**
 * Whether any thread of process `pid` has yet to exit. A killed process's
 * leader thread shows as a zombie while its other threads are still exiting,
 * and those still hold the process's files: a killed server's listening
 * socket keeps accepting connections (and resets them) until the last one
 * has gone. False when /proc cannot tell (the process is gone, or no
 * /proc): its callers ask only after /proc showed the leader exited.
 */
export function threadsLeft(pid: number): boolean {
  let tids: string[];
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return false;
  }
  return tids.some((tid) => {
    try {
      return !exited(statFields(readFileSync(`/proc/${pid}/task/${tid}/stat`, "utf8")).state);
    } catch {
      return false; // the thread is gone meanwhile
    }
  });
}

/**
 * Whether `pid` is alive and, when `command` is given, whether its command
 * line mentions it (so a pid reused by an unrelated process after a crash
 * does not count). A zombie is not alive once every thread of it has exited
 * (threadsLeft): until then it still holds its files and ports.
 */
export function isAlive(pid: number, command?: string): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EPERM") return false;
  }
  const proc = (file: string) => {
    try {
      return readFileSync(`/proc/${pid}/${file}`, "utf8");
    } catch {
      return undefined; // no /proc (not Linux): trust kill(0)
    }
  };
  const stat = proc("stat");
  if (stat !== undefined && exited(statFields(stat).state)) return threadsLeft(pid);
  if (command === undefined) return true;
  return proc("cmdline")?.includes(command) ?? true;
}

/** The pid on the first line of a pid file, if the file exists and holds one. */
export async function readPid(file: string): Promise<number | undefined> {
  const text = await readFile(file, "utf8").catch(() => "");
  const pid = Number.parseInt(text.split("\n")[0] ?? "", 10);
  return Number.isInteger(pid) && pid > 0 ? pid : undefined;
}

/** The pid in `file` if that process is alive and runs `command`. */
export async function livePid(file: string, command: string): Promise<number | undefined> {
  const pid = await readPid(file);
  return pid !== undefined && isAlive(pid, command) ? pid : undefined;
}

/** Polls `check` until it returns a value; throws `describe()` once `timeoutMs` has passed. */
export async function waitFor<T>(
  check: () => Promise<T | undefined>,
  opts: { timeoutMs: number; intervalMs?: number; describe: () => Promise<string> | string },
): Promise<T> {
  const deadline = Date.now() + opts.timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(await opts.describe());
    await sleep(opts.intervalMs ?? 200);
  }
}

/** Sends `signal` (default SIGTERM), then SIGKILL after `timeoutMs`, and returns once the process is gone. */
export async function stopPid(pid: number, opts: { command: string; timeoutMs: number; signal?: NodeJS.Signals }): Promise<void> {
  const signal = (sig: NodeJS.Signals) => {
    try {
      process.kill(pid, sig);
    } catch {
      // already gone
    }
  };
  signal(opts.signal ?? "SIGTERM");
  const exited = async () => (isAlive(pid, opts.command) ? undefined : true);
  try {
    await waitFor(exited, { timeoutMs: opts.timeoutMs, describe: () => "" });
  } catch {
    signal("SIGKILL");
    await waitFor(exited, { timeoutMs: 5_000, describe: () => `process ${pid} survived SIGKILL` });
  }
}

/** Whether something accepts TCP connections on HOST:port. */
export function portAnswers(port: number, timeoutMs = 500): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: HOST, port, timeout: timeoutMs });
    const done = (open: boolean) => {
      socket.destroy();
      resolve(open);
    };
    socket.once("connect", () => done(true));
    socket.once("timeout", () => done(false));
    socket.once("error", () => done(false));
  });
}

/** The absolute path of `name` on `pathEnv` (a PATH-style list), if it is there and executable. */
export function findExecutable(name: string, pathEnv: string): string | undefined {
  for (const dir of pathEnv.split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

/** The last `lines` lines of a log file, for error messages. */
export async function tail(file: string, lines = 15): Promise<string> {
  const text = await readFile(file, "utf8").catch(() => "");
  return text.trimEnd().split("\n").slice(-lines).join("\n");
}

export interface RunOptions {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** Run as this user (root only). */
  uid?: number;
  gid?: number;
  timeoutMs?: number;
  /** Called with each line the command prints (stdout and stderr). */
  onLine?: (line: string) => void;
}

export class CommandError extends Error {
  override name = "CommandError";
  constructor(
    message: string,
    readonly output: string,
    readonly code: number | null,
  ) {
    super(`${message}${output ? `\n${output.trimEnd()}` : ""}`);
  }
}

/** Runs a command to completion; resolves with its combined output, rejects with CommandError. */
export function run(command: string, args: string[], opts: RunOptions = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: opts.cwd,
      env: opts.env,
      uid: opts.uid,
      gid: opts.gid,
      stdio: ["ignore", "pipe", "pipe"],
      timeout: opts.timeoutMs,
    });
    let output = "";
    let partial = "";
    const onData = (chunk: Buffer) => {
      const text = chunk.toString();
      output += text;
      if (!opts.onLine) return;
      const lines = (partial + text).split("\n");
      partial = lines.pop() ?? "";
      for (const line of lines) if (line.trim()) opts.onLine(line);
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    child.once("error", (error) => reject(new CommandError(`${command} failed to start: ${error.message}`, "", null)));
    child.once("close", (code, signal) => {
      if (code === 0) return resolve(output);
      const how = signal ? `was killed by ${signal}` : `exited with code ${code}`;
      reject(new CommandError(`\`${command} ${args.join(" ")}\` ${how}`, output, code));
    });
  });
}

/** The first port of the kernel's ephemeral range (what listen(0) and outgoing connections take). */
export function ephemeralLow(): number {
  try {
    const low = Number(readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/)[0]);
    return Number.isInteger(low) && low >= 2048 ? low : 32768;
  } catch {
    return 32768;
  }
}

/** Whether a listener can bind `port` on the loopback address right now. */
export function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = net.createServer();
    srv.once("error", () => resolve(false));
    srv.listen(port, HOST, () => srv.close(() => resolve(true)));
  });
}

/** A port the kernel hands out for listen(0), released again. */
function kernelPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once("error", reject);
    srv.listen(0, HOST, () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

/**
 * How long a port handed out stays promised to whoever asked for it. A
 * PostgreSQL binds its port only after initdb, which takes tens of seconds
 * on a loaded machine; meanwhile the port is free, and another process of
 * sfbench (the other test lane, a second campaign) would be handed it too.
 */
export const PORT_LEASE_MS = 10 * 60_000;

/** Where the leases of all sfbench processes on this machine are kept. */
export function portLeaseDir(): string {
  return process.env.SFBENCH_PORT_LEASES ?? path.join(tmpdir(), "sfbench-port-leases");
}

/**
 * Takes the lease on `port` for this process: false when another one holds
 * it. A lease file is created exclusively; an expired one is moved aside by
 * rename, which only one of two processes racing for it can do.
 */
function lease(port: number): boolean {
  const dir = portLeaseDir();
  const file = path.join(dir, String(port));
  const take = (): boolean => {
    try {
      closeSync(openSync(file, "wx"));
      return true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "EEXIST") return false;
      if ((err as NodeJS.ErrnoException).code !== "ENOENT") return true; // no lease directory to write to: the bind check alone decides
      mkdirSync(dir, { recursive: true });
      return take();
    }
  };
  if (take()) return true;
  let expired: boolean;
  try {
    expired = Date.now() - statSync(file).mtimeMs > PORT_LEASE_MS;
  } catch {
    expired = true; // its holder just moved it aside
  }
  if (!expired) return false;
  try {
    renameSync(file, `${file}.expired-${process.pid}`);
    unlinkSync(`${file}.expired-${process.pid}`);
  } catch {
    return false; // another process took it first
  }
  return take();
}

/**
 * A free port to hand to a process that binds it later (a service, a target
 * node, k6's API, a portal). It comes from the 10,000 ports below the
 * kernel's ephemeral range: a port from listen(0), released for the child,
 * could meanwhile become an outgoing connection's source port or another
 * listen(0)'s port, and the child would exit with "address in use"; a node
 * killed and restarted on it could also see a connection to itself. A port
 * handed out is leased (PORT_LEASE_MS) so that no other sfbench process is
 * handed it before its child has bound it. Falls back to the kernel's
 * choice when the ports below the range are taken.
 */
export async function freePort(): Promise<number> {
  const high = ephemeralLow() - 1;
  const low = Math.max(1025, high - 9999);
  for (let i = 0; i < 50; i++) {
    const port = low + Math.floor(Math.random() * (high - low + 1));
    if ((await portFree(port)) && lease(port)) return port;
  }
  return kernelPort();
}
