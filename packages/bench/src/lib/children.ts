/**
 * Child processes of the harness: servers pinned to a core (started, waited
 * for, stopped, never left behind) and commands whose output is read.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { tasksetPrefix } from "@sfbench/engine";

export class HarnessError extends Error {}

const live = new Set<ChildProcess>();
// whatever happens to the harness, its servers go with it
process.on("exit", () => {
  for (const c of live) c.kill("SIGKILL");
});

const cleanups = new Set<() => Promise<void>>();

/** Registers work to do when the harness is interrupted (e.g. stop a target a child started); returns the unregister function. */
export function onInterrupt(fn: () => Promise<void>): () => void {
  cleanups.add(fn);
  return () => cleanups.delete(fn);
}

/** On SIGINT/SIGTERM: SIGTERM to every child (SIGKILL after 5 s), then the registered cleanups. */
export async function interrupted(): Promise<void> {
  await Promise.all(
    [...live].map(
      (c) =>
        new Promise<void>((resolve) => {
          if (c.exitCode !== null || c.signalCode !== null) return resolve();
          const kill = setTimeout(() => c.kill("SIGKILL"), 5000);
          c.once("close", () => {
            clearTimeout(kill);
            resolve();
          });
          c.kill("SIGTERM");
        }),
    ),
  );
  for (const fn of cleanups) await fn().catch(() => undefined);
}

/** tsx's loader, so that node runs the TypeScript servers directly */
const TSX = import.meta.resolve("tsx");

export interface StartedServer {
  url: string;
  pid: number;
  /** how the server ended, when it has */
  exited(): string | undefined;
  stop(): Promise<void>;
}

/** Starts `node <file> --port 0 <args>` (TypeScript via tsx) on a CPU list and waits for its {"port": N} line. */
export async function startServer(file: string, args: string[], cpus?: string): Promise<StartedServer> {
  const [cmd, ...prefix] = [...tasksetPrefix(cpus), process.execPath];
  const child = spawn(cmd!, [...prefix, "--import", TSX, file, "--port", "0", ...args], { stdio: ["ignore", "pipe", "pipe"] });
  live.add(child);
  let stderr = "";
  child.stderr!.on("data", (d: Buffer) => (stderr = (stderr + d.toString()).slice(-4000)));
  let exitedHow: string | undefined;
  const closed = new Promise<void>((resolve) =>
    child.on("close", (code, signal) => {
      exitedHow = signal ? `signal ${signal}` : `code ${code}`;
      live.delete(child);
      resolve();
    }),
  );
  const port = await new Promise<number>((resolve, reject) => {
    let out = "";
    const timer = setTimeout(() => reject(new HarnessError(`${file} did not start within 20 s: ${stderr.trim() || "(no output)"}`)), 20_000);
    child.stdout!.on("data", (d: Buffer) => {
      out += d.toString();
      const line = out.split("\n")[0]!;
      if (!out.includes("\n")) return;
      clearTimeout(timer);
      try {
        resolve((JSON.parse(line) as { port: number }).port);
      } catch {
        reject(new HarnessError(`${file} printed ${JSON.stringify(line)} instead of {"port": N}`));
      }
    });
    child.on("error", (e) => reject(new HarnessError(`could not start ${file}: ${e.message}`)));
    void closed.then(() => {
      clearTimeout(timer);
      reject(new HarnessError(`${file} exited with ${exitedHow} before listening: ${stderr.trim() || "(no output)"}`));
    });
  }).catch(async (e: unknown) => {
    child.kill("SIGKILL");
    await closed;
    throw e;
  });
  return {
    url: `http://127.0.0.1:${port}`,
    pid: child.pid!,
    exited: () => exitedHow,
    async stop() {
      if (exitedHow) return;
      child.kill("SIGTERM");
      const kill = setTimeout(() => child.kill("SIGKILL"), 3000);
      await closed;
      clearTimeout(kill);
    },
  };
}

export interface CommandResult {
  code: number | null;
  /** the signal that ended it, when one did */
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  pid: number | undefined;
}

/** Runs a command to its end; onStart sees its pid (for CPU sampling). */
export function runCommand(
  cmd: string,
  args: string[],
  opts: { env?: NodeJS.ProcessEnv; cwd?: string; timeoutMs?: number; onStart?: (pid: number) => void; onStderr?: (text: string) => void } = {},
): Promise<CommandResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { env: opts.env ?? process.env, cwd: opts.cwd, stdio: ["ignore", "pipe", "pipe"] });
    live.add(child);
    if (child.pid) opts.onStart?.(child.pid);
    let stdout = "";
    let stderr = "";
    child.stdout!.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr!.on("data", (d: Buffer) => {
      stderr = (stderr + d.toString()).slice(-20_000);
      opts.onStderr?.(d.toString());
    });
    const timer = opts.timeoutMs ? setTimeout(() => child.kill("SIGKILL"), opts.timeoutMs) : undefined;
    child.on("error", (e) => {
      live.delete(child);
      clearTimeout(timer);
      reject(new HarnessError(`could not run ${cmd}: ${e.message}`));
    });
    child.on("close", (code, signal) => {
      live.delete(child);
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr, pid: child.pid });
    });
  });
}

/** GET a JSON document from a harness server. */
export async function getJson<T>(url: string): Promise<T> {
  const res = await fetch(url, { signal: AbortSignal.timeout(10_000) });
  if (!res.ok) throw new HarnessError(`GET ${url} answered ${res.status}`);
  return (await res.json()) as T;
}
