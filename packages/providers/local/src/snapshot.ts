/**
 * A stopped bundled target's data, copied out and back: the populated state
 * a campaign builds once per target (docs/running.md, "The populated state").
 * Everything a target keeps between starts lives under
 * .sfbench/targets/<name>/: its data directories (SFBENCH_DATA_DIR, every
 * node's) and its own PostgreSQL, Kafka and Redis. A copy taken after a clean
 * stop is what the next start would have found, so a restored target starts
 * as a target restarted on its own data does (StartOptions.keepData).
 */
import { execFileSync } from "node:child_process";
import { existsSync, lstatSync, mkdirSync, readdirSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { TargetError } from "@sfbench/catalogue";
import { runningTarget } from "./run.ts";
import { stateDir } from "./target-process.ts";

/** The folder of everything the target keeps between starts. */
export const targetHome = (name: string) => join(stateDir(), name);

function refuseRunning(name: string, what: string): void {
  if (runningTarget(name)) throw new TargetError(`${name} is running: ${what} only while it is stopped (its files change under a running server)`);
}

/** Copies `from` to `to` (which must not exist), keeping modes, links and times; a file system that can share blocks shares them. */
export function copyTree(from: string, to: string): void {
  mkdirSync(dirname(to), { recursive: true });
  execFileSync("cp", ["-a", "--reflink=auto", from, to], { stdio: ["ignore", "ignore", "pipe"] });
}

/** The bytes of the files under `dir` (links not followed). */
export function treeBytes(dir: string): number {
  const st = lstatSync(dir);
  if (!st.isDirectory()) return st.isFile() ? st.size : 0;
  return readdirSync(dir).reduce((sum, entry) => sum + treeBytes(join(dir, entry)), 0);
}

/** Copies the stopped target's data into `dir` (new); resolves to its bytes. */
export function snapshotTarget(name: string, dir: string): number {
  refuseRunning(name, "its data is copied");
  const home = targetHome(name);
  if (!existsSync(home)) throw new TargetError(`${name} has no data to copy: ${home} does not exist (it was never started here)`);
  if (existsSync(dir)) throw new TargetError(`${dir} exists: a snapshot goes into a new folder`);
  copyTree(home, dir);
  return treeBytes(dir);
}

/** Replaces the stopped target's data with the copy in `dir`; its next start with keepData starts on it. */
export function restoreTarget(name: string, dir: string): void {
  refuseRunning(name, "its data is replaced");
  if (!existsSync(dir)) throw new TargetError(`${dir} does not exist: there is no snapshot to restore`);
  const home = targetHome(name);
  rmSync(home, { recursive: true, force: true });
  copyTree(dir, home);
}
