/**
 * One benchmark at a time per machine: a lock file names the worker process
 * and the run it measures. A lock whose process is gone marks a run that a
 * worker lost (killed mid-run); the start-up sweep cleans it up.
 */
import { mkdirSync, openSync, readFileSync, rmSync, writeSync, closeSync } from "node:fs";
import { join } from "node:path";
import { isAlive as alive } from "@sfbench/provider-local";
import { paths } from "@sfbench/services";

export interface RunLock {
  pid: number;
  runId: string;
  target: string;
  startedAt: string;
}

export const lockFile = () => join(paths.home, "worker", "run.lock");

export function readLock(): RunLock | undefined {
  try {
    return JSON.parse(readFileSync(lockFile(), "utf8")) as RunLock;
  } catch {
    return undefined;
  }
}

/** The lock of a worker that died holding it, if any. */
export function deadLock(): RunLock | undefined {
  const l = readLock();
  return l && !alive(l.pid) ? l : undefined;
}

/** Takes the machine's run lock, waiting while another live worker holds it. */
export async function acquireRunLock(runId: string, target: string, opts: { pollMs?: number; signal?: AbortSignal } = {}): Promise<void> {
  mkdirSync(join(paths.home, "worker"), { recursive: true });
  for (;;) {
    try {
      const fd = openSync(lockFile(), "wx");
      writeSync(fd, JSON.stringify({ pid: process.pid, runId, target, startedAt: new Date().toISOString() } satisfies RunLock));
      closeSync(fd);
      return;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
      const held = readLock();
      if (held && held.pid === process.pid) throw new Error(`this worker already holds the run lock for run ${held.runId}`);
      if (held && !alive(held.pid)) throw new Error(`a lost run lock (run ${held.runId}, pid ${held.pid}) must be swept first`);
    }
    if (opts.signal?.aborted) throw new Error("stopped while waiting for the run lock");
    await new Promise((r) => setTimeout(r, opts.pollMs ?? 500));
  }
}

export function releaseRunLock(runId: string): void {
  const held = readLock();
  if (held && held.runId === runId && held.pid === process.pid) rmSync(lockFile(), { force: true });
}

/** Removes a lock after its run was swept. */
export function clearLock(): void {
  rmSync(lockFile(), { force: true });
}
