/**
 * A target's own storage: every target that declares `postgres` gets a
 * PostgreSQL server of its own, started and stopped with it, its data under
 * .sfbench/targets/<name>/postgres/. Durable settings (fsync,
 * synchronous_commit, full_page_writes on) when the manifest promises
 * `durability: durable`, scratch settings otherwise. A server of its own is
 * what lets the cost sampler count the target's database work and nobody
 * else's (the portal's and the worker's connections live on the shared server).
 *
 * Likewise a target that declares `kafka` gets a broker of its own under
 * .sfbench/targets/<name>/kafka/: what a system needs on its data path is part
 * of its cost, and the broker stops with the target, so no run leaves a loaded
 * broker behind for the next benchmark. sfbench's own traffic (span lines)
 * stays on the shared broker. And a target that declares `redis` gets a Redis
 * of its own under .sfbench/targets/<name>/redis/, with a password made for
 * it: the shared Redis is the worker's queue, never a target's.
 */
import { join } from "node:path";
import type { Environment, TargetManifest } from "@sfbench/core";
import {
  DURABLE,
  paths,
  SCRATCH,
  startKafkaInstance,
  startPostgresInstance,
  startRedisInstance,
  stopKafkaInstance,
  stopPostgresInstance,
  stopRedisInstance,
  type PostgresReportedSettings,
} from "@sfbench/services";

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
export async function startTargetPostgres(
  name: string,
  manifest: TargetManifest,
  opts: { keepData?: boolean; cpus?: string; onProgress?: (message: string) => void } = {},
): Promise<TargetPostgres> {
  // an unsynced target's acknowledgements may not wait on its PostgreSQL's fsync, but what it commits there must survive kill -9
  const durable = manifest.guarantees.durability !== "in-memory";
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

/** What a running target's state file records of its Kafka broker. */
export interface TargetKafka {
  /** the broker's JVM */
  pid: number;
  port: number;
  brokers: string[];
  dir: string;
  version: string;
}

export const targetKafkaDir = (name: string) => join(paths.home, "targets", name, "kafka");

/** Starts the target's Kafka broker (its log kept from an earlier start with keepData). */
export async function startTargetKafka(
  name: string,
  opts: { keepData?: boolean; cpus?: string; onProgress?: (message: string) => void } = {},
): Promise<TargetKafka> {
  const k = await startKafkaInstance({
    dir: targetKafkaDir(name),
    keepData: opts.keepData,
    ...(opts.cpus ? { cpus: opts.cpus } : {}),
    onProgress: (m) => opts.onProgress?.(`kafka (${name}'s own): ${m}`),
  });
  return { pid: k.pid, port: k.port, brokers: k.brokers, dir: k.dir, version: k.version };
}

/** Stops the target's Kafka broker if it runs; idempotent. */
export function stopTargetKafka(name: string): Promise<boolean> {
  return stopKafkaInstance(targetKafkaDir(name));
}

/** What a running target's state file records of its Redis. */
export interface TargetRedis {
  pid: number;
  port: number;
  /** REDIS_URL: its loopback port, with its password */
  url: string;
  dir: string;
  version: string;
}

export const targetRedisDir = (name: string) => join(paths.home, "targets", name, "redis");

/** Starts the target's Redis (its data kept from an earlier start with keepData): durable (every write fsynced) when the manifest is. */
export async function startTargetRedis(
  name: string,
  manifest: TargetManifest,
  opts: { keepData?: boolean; cpus?: string; onProgress?: (message: string) => void } = {},
): Promise<TargetRedis> {
  const durable = manifest.guarantees.durability !== "in-memory";
  const r = await startRedisInstance({
    dir: targetRedisDir(name),
    durable,
    keepData: opts.keepData ?? false,
    ...(opts.cpus ? { cpus: opts.cpus } : {}),
    onProgress: (m) => opts.onProgress?.(`redis (${durable ? "durable" : "scratch"}, ${name}'s own): ${m}`),
  });
  return { pid: r.pid, port: r.port, url: r.url, dir: r.dir, version: r.version };
}

/** Stops the target's Redis if it runs; idempotent. */
export function stopTargetRedis(name: string): Promise<boolean> {
  return stopRedisInstance(targetRedisDir(name));
}

/**
 * The root pids whose process trees are the target's cost: its own processes
 * (every node) and its own database server, nothing shared (not sfbench's
 * balancer either). Pass the state read at sampling time (runningTarget):
 * a restarted node has a new pid.
 */
export function costPids(target: { pid: number; nodes?: { pid: number }[]; postgres?: TargetPostgres; kafka?: TargetKafka; redis?: TargetRedis }): number[] {
  return [
    ...(target.nodes ? target.nodes.map((n) => n.pid) : [target.pid]),
    ...(target.postgres ? [target.postgres.pid] : []),
    ...(target.kafka ? [target.kafka.pid] : []),
    ...(target.redis ? [target.redis.pid] : []),
  ];
}

/** The target's storage for the result's environment fingerprint; undefined when it has none of sfbench's. */
export function storageFingerprint(target: { postgres?: TargetPostgres; kafka?: TargetKafka }): Environment["storage"] | undefined {
  if (!target.postgres && !target.kafka) return undefined;
  const pg = target.postgres?.settings;
  return {
    ...(pg
      ? {
          postgres: {
            instance: "dedicated" as const,
            fsync: pg.fsync,
            synchronous_commit: pg.synchronous_commit,
            full_page_writes: pg.full_page_writes,
            version: pg.version,
          },
        }
      : {}),
    ...(target.kafka ? { kafka: { instance: "dedicated" as const, version: target.kafka.version } } : {}),
  };
}
