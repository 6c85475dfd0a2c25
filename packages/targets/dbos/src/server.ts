/**
 * createServer(): the whole target, ready to listen: the Fastify gateway and
 * the DBOS runtime in one process, as DBOS applications are written. DBOS's
 * system database is the schema `dbos` of the target's own database
 * (DATABASE_URL); the application's tables are in its public schema.
 * DBOS is a process-wide singleton, so a process creates one server.
 */
import { DBOS } from "@dbos-inc/dbos-sdk";
import type { FastifyInstance } from "fastify";
import { buildHttpApp, createPool, createSchemaWithRetry, SpanWriter, type LineSink, type LogLevel } from "@sfbench/shop-pg";
import { registerMicro } from "./app/micro.ts";
import { SCHEMA } from "./app/schema.ts";
import { createShop } from "./app/shop.ts";

/** The application version DBOS records on every workflow: recovery after a restart resumes only this version's workflows. */
export const APPLICATION_VERSION = "0.1.0";

export interface ServerOptions {
  databaseUrl: string;
  /** write span lines (SPEC 3); default false */
  trace?: boolean;
  /** where span lines go; default process.stdout */
  traceSink?: LineSink;
  /** default "warn" */
  logLevel?: LogLevel;
  /** PostgreSQL connections of the application's transactions; default 20 */
  poolSize?: number;
  /** PostgreSQL connections of DBOS's system database; default 20 */
  systemPoolSize?: number;
  /** freq-items queries that would visit more products are refused with 400; default 100000 */
  maxFreqVisits?: number;
}

export interface TargetServer {
  app: FastifyInstance;
  /** Resolves once the schema exists and DBOS has launched (until then /health answers 503); rejects if closed first. */
  ready: Promise<void>;
  /** Stops accepting requests, drains in-flight ones, shuts DBOS down, ends the pool. Idempotent. */
  close(): Promise<void>;
}

/** DBOS's log levels are winston's: it has no fatal or silent. */
const dbosLogLevel = (level: LogLevel) => (level === "fatal" || level === "silent" ? "error" : level === "trace" ? "debug" : level);

export async function createServer(options: ServerOptions): Promise<TargetServer> {
  const { databaseUrl, trace = false, logLevel = "warn", poolSize = 20, systemPoolSize = 20 } = options;
  let isReady = false;
  let launched = false;
  let closing: Promise<void> | undefined;

  // The logger lives on the Fastify instance, created below; nothing logs before it exists.
  const logError = (err: Error, what: string) => app.log.error({ err }, what);

  const db = createPool({ databaseUrl, size: poolSize, applicationName: "sfbench-dbos", onError: (err) => logError(err, "idle PostgreSQL connection failed") });
  // Workflows are registered before DBOS.launch(), which recovers the ones a crash interrupted.
  const shop = createShop({ db, ...(options.maxFreqVisits ? { freqLimits: { maxVisits: options.maxFreqVisits } } : {}) });
  const micro = registerMicro(db);
  DBOS.setConfig({
    name: "sfbench-dbos",
    applicationVersion: APPLICATION_VERSION,
    systemDatabaseUrl: databaseUrl,
    systemDatabasePoolSize: systemPoolSize,
    logLevel: dbosLogLevel(logLevel),
  });

  const spans = trace ? new SpanWriter(options.traceSink ?? process.stdout) : undefined;
  const app = buildHttpApp({
    shop,
    micro,
    isReady: () => isReady,
    startingWhat: "creating the database schema and launching DBOS",
    spans,
    logLevel,
  });
  await app.ready();

  const ready = createSchemaWithRetry(
    db,
    SCHEMA,
    () => closing !== undefined,
    (err, attempt) => app.log.warn({ err }, `creating the schema failed (attempt ${attempt}), retrying`),
  )
    .then(async () => {
      if (closing) throw new Error("closed before DBOS launched");
      launched = true;
      await DBOS.launch();
    })
    .then(() => {
      isReady = true;
    });
  ready.catch(() => {}); // whoever awaits `ready` sees the error; nobody awaiting it is fine too

  const close = async () => {
    await app.close();
    spans?.flush();
    await ready.catch(() => {});
    if (launched) await DBOS.shutdown();
    await db.end();
  };

  return { app, ready, close: () => (closing ??= close()) };
}
