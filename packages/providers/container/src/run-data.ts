/**
 * A run's data, kept past its teardown and put in place of a later run's:
 * what a campaign's populated state is for an image (provider-local's
 * snapshot.ts for a bundled target). A run's data is every node's /data on
 * the run's volume and the directories of its own PostgreSQL, Redis and
 * Kafka; copied only once all of them have stopped cleanly, so the copy is
 * what the next start of the same run would have found. Neither the run's
 * logs nor its pid files go with it: a run started on the copy starts its
 * own.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { TargetError } from "@sfbench/catalogue";
import { copyTree } from "@sfbench/provider-local";

/** The run's own servers whose directories hold data (each a folder of the run's directory). */
export const RUN_SERVICES = ["postgres", "redis", "kafka"] as const;

const NODE_DATA = /^node-\d+$/;

/** Copies a stopped run's data (`volume`: its mounted disk, `dir`: its directory) into `to` (new). */
export function keepRunData(dir: string, volume: string | undefined, to: string): void {
  if (existsSync(to)) throw new TargetError(`${to} exists: a run's data is kept in a new folder`);
  mkdirSync(to, { recursive: true });
  if (volume && existsSync(volume))
    for (const entry of readdirSync(volume)) if (NODE_DATA.test(entry)) copyTree(join(volume, entry), join(to, "volume", entry));
  // what the image wrote is the team's: on the host's disk (not nodev, nosuid like the run's volume) none of it gains privileges
  // (no device, fifo or socket, no setuid or setgid bit)
  const nodes = join(to, "volume");
  if (existsSync(nodes)) {
    execFileSync("find", [nodes, "-xdev", "!", "(", "-type", "f", "-o", "-type", "d", "-o", "-type", "l", ")", "-delete"]);
    execFileSync("find", [nodes, "-xdev", "-perm", "/6000", "(", "-type", "f", "-o", "-type", "d", ")", "-exec", "chmod", "ug-s", "{}", "+"]);
  }
  for (const service of RUN_SERVICES) {
    const from = join(dir, service);
    if (!existsSync(from)) continue;
    copyTree(from, join(to, service));
    // the server's own log and pid file are the build's, not the data's
    for (const entry of readdirSync(join(to, service))) if (/\.(log|pid)$/.test(entry)) rmSync(join(to, service, entry), { force: true });
  }
}

/**
 * Puts kept data (keepRunData's `from`) in place for a run about to start:
 * its nodes' /data on the run's fresh volume, its servers' directories in
 * the run's directory (which they then start on, keeping it).
 */
export function restoreRunData(from: string, dir: string, volume: string): void {
  if (!existsSync(from)) throw new TargetError(`${from} does not exist: there is no kept data to start the run on`);
  const nodes = join(from, "volume");
  if (existsSync(nodes)) for (const entry of readdirSync(nodes)) if (NODE_DATA.test(entry)) copyTree(join(nodes, entry), join(volume, entry));
  for (const service of RUN_SERVICES) if (existsSync(join(from, service))) copyTree(join(from, service), join(dir, service));
}
