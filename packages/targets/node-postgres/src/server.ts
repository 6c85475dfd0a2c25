/**
 * createServer(): the whole target, ready to listen. Tests import this; main.ts
 * only reads the environment and listens.
 */
import type { FastifyInstance } from "fastify";
import { buildHttpApp, createPool, createSchemaWithRetry, SpanWriter, type LineSink, type LogLevel } from "@sfbench/shop-pg";
import { createMicro } from "./app/micro.ts";
import { SCHEMA } from "./app/schema.ts";
import { createShop } from "./app/shop.ts";

export interface ServerOptions {
  databaseUrl: string;
  /** write span lines (SPEC 3); default false */
  trace?: boolean;
  /** where span lines go; default process.stdout */
  traceSink?: LineSink;
  /** default "warn" */
  logLevel?: LogLevel;
  /** PostgreSQL connections; default 20 */
  poolSize?: number;
  /** freq-items queries that would visit more products are refused with 400; default 100000 */
  maxFreqVisits?: number;
}

export interface TargetServer {
  app: FastifyInstance;
  /** Resolves once the schema exists (until then /health answers 503); rejects if closed first. */
  ready: Promise<void>;
  /** Resolves once every co-purchase update recorded so far is written. */
  settle(): Promise<void>;
  /** Stops accepting requests, drains in-flight ones and background writes, ends the pool. Idempotent. */
  close(): Promise<void>;
}

export async function createServer(options: ServerOptions): Promise<TargetServer> {
  const { databaseUrl, trace = false, logLevel = "warn", poolSize = 20 } = options;
  let isReady = false;
  let closing: Promise<void> | undefined;

  // The logger lives on the Fastify instance, created below; nothing logs before it exists.
  const logError = (err: Error, what: string) => app.log.error({ err }, what);

  const db = createPool({
    databaseUrl,
    size: poolSize,
    applicationName: "sfbench-node-postgres",
    onError: (err) => logError(err, "idle PostgreSQL connection failed"),
  });
  const shop = createShop({
    db,
    onBackgroundError: logError,
    ...(options.maxFreqVisits ? { freqLimits: { maxVisits: options.maxFreqVisits } } : {}),
  });
  const spans = trace ? new SpanWriter(options.traceSink ?? process.stdout) : undefined;
  const app = buildHttpApp({
    shop,
    micro: createMicro(db),
    isReady: () => isReady,
    startingWhat: "creating the database schema",
    spans,
    logLevel,
  });
  await app.ready();

  const ready = createSchemaWithRetry(
    db,
    SCHEMA,
    () => closing !== undefined,
    (err, attempt) => app.log.warn({ err }, `creating the schema failed (attempt ${attempt}), retrying`),
  ).then(() => {
    isReady = true;
  });
  ready.catch(() => {}); // whoever awaits `ready` sees the error; nobody awaiting it is fine too

  const close = async () => {
    await app.close();
    await shop.close();
    spans?.flush();
    await ready.catch(() => {});
    await db.end();
  };

  return {
    app,
    ready,
    settle: () => shop.settle(),
    close: () => (closing ??= close()),
  };
}
