/**
 * A target's own storage: every target that declares `postgres` gets a
 * PostgreSQL server of its own, started and stopped with it, its data under
 * .sfbench/targets/<name>/postgres/. Durable settings (fsync,
 * synchronous_commit, full_page_writes on) when the manifest promises
 * `durability: durable`, scratch settings otherwise. A server of its own is
 * what lets the cost sampler count the target's database work and nobody
 * else's (the portal's and the worker's connections live on the shared server).
 */
import { join } from "node:path";
import type { Environment, TargetManifest } from "@sfbench/core";
import { DURABLE, paths, SCRATCH, startPostgresInstance, stopPostgresInstance, type PostgresReportedSettings } from "@sfbench/services";

/** What a running target's state file records of its PostgreSQL. */
export interface TargetPostgres {
  /** the postmaster: it and its descendants are the target's database processes */
  pid: number;
  port: number;
  url: string;
  dir: string;
  /** as the server reports them */
  settings: PostgresReportedSettings;
}

export const targetPostgresDir = (name: string) => join(paths.home, "targets", name, "postgres");

/** Starts the target's PostgreSQL (its data kept from an earlier start with keepData). */
export async function startTargetPostgres(name: string, manifest: TargetManifest, opts: { keepData?: boolean; cpus?: string; onProgress?: (message: string) => void } = {}): Promise<TargetPostgres> {
  const durable = manifest.guarantees.durability === "durable";
  const pgi = await startPostgresInstance({
    dir: targetPostgresDir(name),
    settings: durable ? DURABLE : SCRATCH,
    database: "target",
    keepData: opts.keepData,
    ...(opts.cpus ? { cpus: opts.cpus } : {}),
    onProgress: (m) => opts.onProgress?.(`postgres (${durable ? "durable" : "scratch"}, ${name}'s own): ${m}`),
  });
  return { pid: pgi.pid, port: pgi.port, url: pgi.url, dir: pgi.dir, settings: pgi.settings };
}

/** Stops the target's PostgreSQL if it runs; idempotent. */
export function stopTargetPostgres(name: string): Promise<boolean> {
  return stopPostgresInstance(targetPostgresDir(name));
}

/**
 * The root pids whose process trees are the target's cost: its own processes
 * (every node) and its own database server, nothing shared (not sfbench's
 * balancer either). Pass the state read at sampling time (runningTarget):
 * a restarted node has a new pid.
 */
export function costPids(target: { pid: number; nodes?: { pid: number }[]; postgres?: TargetPostgres }): number[] {
  return [...(target.nodes ? target.nodes.map((n) => n.pid) : [target.pid]), ...(target.postgres ? [target.postgres.pid] : [])];
}

/** The target's storage for the result's environment fingerprint; undefined when it has none of sfbench's. */
export function storageFingerprint(target: { postgres?: TargetPostgres }): Environment["storage"] | undefined {
  if (!target.postgres) return undefined;
  const { fsync, synchronous_commit, full_page_writes, version } = target.postgres.settings;
  return { postgres: { instance: "dedicated", fsync, synchronous_commit, full_page_writes, version } };
}
