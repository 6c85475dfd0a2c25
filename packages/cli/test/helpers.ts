import { spawn, type ChildProcessByStdio } from "node:child_process";
import type { Readable } from "node:stream";
import { fileURLToPath } from "node:url";

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
