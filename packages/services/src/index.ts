import { borrowService, keepService, type Borrowed } from "./borrow.ts";
import { k6 } from "./k6.ts";
import { kafka } from "./kafka.ts";
import { postgres } from "./postgres.ts";
import { redis } from "./redis.ts";
import { SERVICE_NAMES, type Service, type ServiceName, type ServiceStatus } from "./types.ts";

export type { Borrowed } from "./borrow.ts";
export { chromiumPath } from "./chromium.ts";
export { paths, ports } from "./env.ts";
export { withLock } from "./lock.ts";
export { k6Path } from "./k6.ts";
export { lossyfsPath, mountedAt, mountLossy, type LossyMount } from "./lossyfs.ts";
export { pythonToolDir, pythonToolPath, SCHEMATHESIS, schemathesisPath, type PythonTool } from "./python-tools.ts";
export { kafkaBrokers } from "./kafka.ts";
export { ephemeralLow, freePort, PORT_LEASE_MS, portFree, portLeaseDir } from "@sfbench/core/ports";
export { exited, isAlive, portAnswers, statFields, threadsLeft } from "./process.ts";
export { startKafkaInstance, stopKafkaInstance, type KafkaInstance, type KafkaInstanceOptions } from "./kafka-instance.ts";
export { createDatabase, postgresUrl } from "./postgres.ts";
export {
  DURABLE,
  SCRATCH,
  startPostgresInstance,
  stopPostgresInstance,
  type InstanceOptions,
  type PostgresDurability,
  type PostgresInstance,
  type PostgresReportedSettings,
} from "./postgres-instance.ts";
export { answersPing, ping as redisAnswers, redisUrl } from "./redis.ts";
export { startRedisInstance, stopRedisInstance, type RedisInstance, type RedisInstanceOptions } from "./redis-instance.ts";
export { MissingPrerequisiteError, redactUrl, SERVICE_NAMES, type ServiceName, type ServiceStatus } from "./types.ts";

const services: Record<ServiceName, Service> = { postgres, redis, kafka, k6 };

export interface UpOptions {
  /** Progress lines while services start (downloads, initdb, a k6 build). */
  onProgress?: (service: ServiceName, message: string) => void;
}

/**
 * Waits for every call, then throws the one failure as it is (so a MissingPrerequisiteError
 * stays one), or an AggregateError naming each service when several failed.
 */
async function each<T>(names: readonly ServiceName[], fn: (name: ServiceName) => Promise<T>): Promise<T[]> {
  const unknown = names.filter((name) => !SERVICE_NAMES.includes(name));
  if (unknown.length > 0) {
    throw new Error(`unknown service ${unknown.map((n) => JSON.stringify(n)).join(", ")}: use ${SERVICE_NAMES.join(", ")}`);
  }
  const results = await Promise.allSettled(names.map(fn));
  const failures = results.flatMap((r, i) => (r.status === "rejected" ? [{ name: names[i], error: r.reason }] : []));
  if (failures.length === 1) throw failures[0]?.error;
  if (failures.length > 1) {
    const lines = failures.map((f) => `${f.name}: ${f.error instanceof Error ? f.error.message : String(f.error)}`);
    throw new AggregateError(
      failures.map((f) => f.error),
      `${failures.length} services failed:\n${lines.join("\n")}`,
    );
  }
  return results.map((r) => (r as PromiseFulfilledResult<T>).value);
}

/**
 * Starts the named services (default all), concurrently; already running ones are left alone.
 * They stay up until down(), also one a command had borrowed.
 */
export async function up(names: readonly ServiceName[] = SERVICE_NAMES, opts: UpOptions = {}): Promise<ServiceStatus[]> {
  return each(names, async (name) => {
    // k6 is a binary, not a server: nobody borrows it
    if (name !== "k6") await keepService(name);
    return services[name].up((message) => opts.onProgress?.(name, message));
  });
}

/**
 * Uses a server for as long as a command runs: starts it when it is down;
 * release() stops it again once no other borrower is left, unless it was up
 * before or someone asked for it with up() meanwhile.
 */
export async function borrow(name: Exclude<ServiceName, "k6">, opts: UpOptions = {}): Promise<Borrowed> {
  return borrowService(name, services[name], (message) => opts.onProgress?.(name, message));
}

/** Stops what up() started (by pid file) and waits until it has exited; a stopped service is fine. */
export async function down(names: readonly ServiceName[] = SERVICE_NAMES): Promise<void> {
  await each(names, (name) => services[name].down());
}

export async function status(names: readonly ServiceName[] = SERVICE_NAMES): Promise<ServiceStatus[]> {
  return each(names, (name) => services[name].status());
}
