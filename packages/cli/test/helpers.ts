import { spawn, type ChildProcessByStdio } from "node:child_process";
import type { Readable } from "node:stream";
import { fileURLToPath } from "node:url";
import { vi } from "vitest";

const BIN = fileURLToPath(new URL("../bin/sfbench.mjs", import.meta.url));

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The real `sfbench` entry point started as a child process, its output piped; an `undefined` in `env` removes that variable. */
export function spawnSfbench(args: string[], env: Record<string, string | undefined> = {}): ChildProcessByStdio<null, Readable, Readable> {
  const merged = Object.fromEntries(Object.entries({ ...process.env, ...env }).filter(([, v]) => v !== undefined));
  return spawn(process.execPath, [BIN, ...args], { env: merged, stdio: ["ignore", "pipe", "pipe"] });
}

/** Runs the real `sfbench` entry point as a child process until it exits; an `undefined` in `env` removes that variable. */
export function sfbench(args: string[], env: Record<string, string | undefined> = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawnSfbench(args, env);
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d));
    child.stderr.on("data", (d: Buffer) => (stderr += d));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

let inProcessQueue: Promise<unknown> = Promise.resolve();

/**
 * The CLI's `main` run inside the test's own process, its stdout and stderr
 * captured: what `bin/sfbench.mjs` would print and the exit code it would
 * set, without a node start and a TypeScript load per call (on a loaded
 * 2-core machine that start is 4-14 s, and help and flag checks need
 * nothing else). One call at a time, since the capture replaces the
 * process's own streams. For what the entry point itself does (the Prisma
 * client's generation, what a command loads, signals), spawn `sfbench`.
 */
export function sfbenchInProcess(args: string[]): Promise<CliResult> {
  const run = inProcessQueue.then(async () => {
    const { main } = await import("../src/main.ts");
    let stdout = "";
    let stderr = "";
    const text = (chunk: string | Uint8Array) => (typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8"));
    const out = vi.spyOn(process.stdout, "write").mockImplementation((chunk) => ((stdout += text(chunk)), true));
    const err = vi.spyOn(process.stderr, "write").mockImplementation((chunk) => ((stderr += text(chunk)), true));
    try {
      const code = await main(args);
      return { code, stdout, stderr };
    } finally {
      out.mockRestore();
      err.mockRestore();
    }
  });
  inProcessQueue = run.catch(() => undefined);
  return run;
}
