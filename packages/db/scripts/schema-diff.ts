/**
 * Prisma's schema engine compiled to WebAssembly (@prisma/schema-engine-wasm, the
 * same engine version as the prisma CLI), run without the native binary that
 * `prisma migrate` would download. It replays prisma/migrations in a throwaway
 * shadow database and returns the SQL that takes that state to schema.prisma.
 */
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import { PrismaPg } from "@prisma/adapter-pg";
import {
  bindMigrationAwareSqlAdapterFactory,
  ColumnTypeEnum,
  type SqlDriverAdapter,
  type SqlMigrationAwareDriverAdapterFactory,
  type SqlResultSet,
} from "@prisma/driver-adapter-utils";
import * as engineJs from "@prisma/schema-engine-wasm/schema_engine_bg";
import pg from "pg";
import { readMigrations } from "../src/migrate.ts";
import { migrationsDir as defaultMigrationsDir, schemaPath as defaultSchemaPath } from "../src/paths.ts";

let loaded = false;

/** Instantiates the wasm module once per process (the package's own entry expects a bundler). */
function loadEngine(): typeof engineJs {
  if (!loaded) {
    const entry = createRequire(import.meta.url).resolve("@prisma/schema-engine-wasm");
    const bytes = new Uint8Array(readFileSync(path.join(path.dirname(entry), "schema_engine_bg.wasm")));
    const instance = new WebAssembly.Instance(new WebAssembly.Module(bytes), { "./schema_engine_bg.js": engineJs as unknown as WebAssembly.ModuleImports });
    engineJs.__wbg_set_wasm(instance.exports);
    (instance.exports.__wbindgen_start as (() => void) | undefined)?.();
    loaded = true;
  }
  return engineJs;
}

async function admin<T>(url: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  client.on("error", () => undefined);
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/**
 * PostgreSQL's one-byte "char" type (pg_constraint.contype, confdeltype, pg_class.relkind,
 * which the engine reads to describe constraints) has no mapping in @prisma/adapter-pg
 * 7.10 ("Column type 'char' could not be deserialized"). The wire message is rewritten
 * before pg sees it: the column becomes text with a marked name, and queryRaw turns
 * marked columns back into the engine's Character type.
 */
const CHAR_OID = 18;
const TEXT_OID = 25;
const CHAR_MARK = "\u0000sfbench-char";

function markCharColumns(pool: pg.Pool): pg.Pool {
  pool.on("connect", (client) => {
    const connection = (client as unknown as { connection: NodeJS.EventEmitter }).connection;
    connection.prependListener("rowDescription", (msg: { fields: { name: string; dataTypeID: number }[] }) => {
      for (const field of msg.fields) {
        if (field.dataTypeID !== CHAR_OID) continue;
        field.dataTypeID = TEXT_OID;
        field.name += CHAR_MARK;
      }
    });
  });
  return pool;
}

function restoreCharColumns(result: SqlResultSet): SqlResultSet {
  result.columnNames.forEach((name, i) => {
    if (!name.endsWith(CHAR_MARK)) return;
    result.columnNames[i] = name.slice(0, -CHAR_MARK.length);
    result.columnTypes[i] = ColumnTypeEnum.Character;
  });
  return result;
}

async function connect(url: string, onDispose?: () => Promise<void>): Promise<SqlDriverAdapter> {
  const pool = markCharColumns(new pg.Pool({ connectionString: url, max: 2 }));
  const adapter = await new PrismaPg(pool, { disposeExternalPool: true }).connect();
  const queryRaw = adapter.queryRaw.bind(adapter);
  adapter.queryRaw = async (query) => restoreCharColumns(await queryRaw(query));
  const startTransaction = adapter.startTransaction.bind(adapter);
  adapter.startTransaction = async (isolationLevel) => {
    const tx = await startTransaction(isolationLevel);
    const txQueryRaw = tx.queryRaw.bind(tx);
    tx.queryRaw = async (query) => restoreCharColumns(await txQueryRaw(query));
    return tx;
  };
  const dispose = adapter.dispose.bind(adapter);
  adapter.dispose = async () => {
    await dispose();
    await onDispose?.();
  };
  return adapter;
}

/**
 * Shadow databases are made on the server of `url` and dropped (WITH FORCE) after their
 * pool has ended: PrismaPg's own connectToShadowDb drops first and fails while its pool
 * still holds a connection.
 */
function adapterFactory(url: string): SqlMigrationAwareDriverAdapterFactory {
  return {
    provider: "postgres",
    adapterName: "@sfbench/db schema-diff",
    connect: () => connect(url),
    async connectToShadowDb() {
      const name = `sfbench_shadow_${randomBytes(6).toString("hex")}`;
      await admin(url, (c) => c.query(`CREATE DATABASE "${name}"`));
      const shadowUrl = new URL(url);
      shadowUrl.pathname = `/${name}`;
      return connect(shadowUrl.toString(), () => admin(url, (c) => c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)).then(() => undefined));
    },
  };
}

export interface DiffOptions {
  /** a PostgreSQL server the shadow database can be created on (any database on it) */
  url: string;
  migrationsDir?: string;
  schemaPath?: string;
}

/** SQL from the state of the migrations to schema.prisma; "" when they already match. */
export async function diffMigrationsToSchema(opts: DiffOptions): Promise<string> {
  const dir = opts.migrationsDir ?? defaultMigrationsDir;
  const schemaFile = opts.schemaPath ?? defaultSchemaPath;
  const schema = await readFile(schemaFile, "utf8");
  const lockfile = await readFile(path.join(dir, "migration_lock.toml"), "utf8").catch(() => 'provider = "postgresql"\n');
  const migrations = await readMigrations(dir);
  const { SchemaEngine } = loadEngine();
  const logs: string[] = [];
  const engine = await SchemaEngine.new(
    { datamodels: [[path.basename(schemaFile), schema]] },
    (line: string) => logs.push(line),
    bindMigrationAwareSqlAdapterFactory(adapterFactory(opts.url)),
  );
  try {
    const result = await engine.diff({
      from: {
        tag: "migrations",
        baseDir: dir,
        lockfile: { path: "migration_lock.toml", content: lockfile },
        shadowDbInitScript: "",
        migrationDirectories: migrations.map((m) => ({
          path: m.name,
          migrationFile: { path: "migration.sql", content: { tag: "ok", value: m.sql } },
        })),
      },
      to: { tag: "schemaDatamodel", files: [{ path: path.basename(schemaFile), content: schema }] },
      script: true,
      exitCode: null,
      filters: { externalTables: [], externalEnums: [] },
    });
    const sql = result.stdout ?? "";
    return /^\s*(-- This is an empty migration\.\s*)?$/.test(sql) ? "" : sql;
  } catch (e) {
    throw new Error(`schema engine: ${(e as Error).message}${logs.length ? `\n${logs.slice(-5).join("\n")}` : ""}`);
  } finally {
    engine.free();
  }
}
