/**
 * Tests start the target the way sfbench does: through @sfbench/provider-local
 * from target.json (launcher, Restate server, service endpoint, gateway), on a
 * port of 18600-18699. provider-local keeps one running instance per target
 * name, so the test files run one after another (vitest.config.ts).
 * Requests, the shopper and polls are the helpers every target folder shares
 * (@sfbench/target-suite).
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { isAlive, stopTarget } from "@sfbench/provider-local";
import { startForTest, type TestTarget } from "@sfbench/target-suite";

export const NAME = "restate";

export type RunningTarget = TestTarget;

/** The target started as a run starts it, on `port`. */
export const start = (port: number, opts: { trace?: boolean; keepData?: boolean } = {}): Promise<RunningTarget> => startForTest(NAME, port, opts);

/** The pids of every process in the target's process group (the launcher is its leader). */
export function groupPids(pgid: number): number[] {
  const out = execFileSync("ps", ["-e", "-o", "pid=,pgid="], { encoding: "utf8" });
  return out
    .trim()
    .split("\n")
    .map((line) => line.trim().split(/\s+/).map(Number))
    .filter(([, group]) => group === pgid)
    .map(([pid]) => pid!);
}

/** The command line of a pid ("" once it is gone). */
export function commandOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").replace(/\0/g, " ").trim();
  } catch {
    return "";
  }
}

/** Kills every process of the target at once (SIGKILL to its process group): a crash, nothing shuts down cleanly. */
export async function crash(t: RunningTarget): Promise<void> {
  const pids = groupPids(t.started.pid);
  process.kill(-t.started.pid, "SIGKILL");
  while (pids.some(isAlive)) await new Promise((r) => setTimeout(r, 20));
  await stopTarget(NAME); // forgets the dead instance's state file
}
