import { spawn } from "node:child_process";
import { accessSync, constants, readdirSync, readFileSync } from "node:fs";
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
  const deadline = performance.now() + opts.timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (performance.now() > deadline) throw new Error(await opts.describe());
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
