/**
 * A target's own PostgreSQL: durable settings really on (SHOW), scratch
 * settings really off, committed data kept across a restart with keepData,
 * and nothing left running after stop.
 */
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { DURABLE, SCRATCH, startPostgresInstance, stopPostgresInstance } from "../src/index.ts";
import { isAlive } from "../src/process.ts";
import { connects } from "./helpers.ts";

// under /tmp: as root the server runs as sfbench-pg, which must be able to enter every directory above it
const root = mkdtempSync(path.join(os.tmpdir(), "sfbench-pg-instance-"));
chmodSync(root, 0o755);
const dirs: string[] = [];
const dirFor = (name: string) => {
  const dir = path.join(root, name);
  dirs.push(dir);
  return dir;
};

afterAll(async () => {
  for (const dir of dirs) await stopPostgresInstance(dir);
  rmSync(root, { recursive: true, force: true });
});

async function query<R extends pg.QueryResultRow>(url: string, text: string): Promise<R[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<R>(text)).rows;
  } finally {
    await client.end();
  }
}

const show = async (url: string) => {
  const [row] = await query<{ fsync: string; synchronous_commit: string; full_page_writes: string }>(
    url,
    "SELECT current_setting('fsync') AS fsync, current_setting('synchronous_commit') AS synchronous_commit, current_setting('full_page_writes') AS full_page_writes",
  );
  return row;
};

describe("a private PostgreSQL instance", () => {
  it("with durable settings has fsync, synchronous_commit and full_page_writes on, and says so", { timeout: 180_000 }, async () => {
    const dir = dirFor("durable");
    const pgi = await startPostgresInstance({ dir, settings: DURABLE, port: 18030, database: "target" });
    expect(pgi.port).toBe(18030);
    // its own password, kept beside the data where only sfbench's user reads it, in the URL sfbench hands out
    const password = readFileSync(path.join(dir, "password"), "utf8").trim();
    expect(password).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(statSync(path.join(dir, "password")).mode & 0o777).toBe(0o600);
    expect(pgi.url).toBe(`postgres://postgres:${password}@127.0.0.1:18030/target`);
    // a client that only reaches the port, without the password, is refused; the wrong password too
    for (const stranger of ["postgres://postgres@127.0.0.1:18030/target", "postgres://postgres:guess@127.0.0.1:18030/target"])
      await expect(query(stranger, "SELECT 1")).rejects.toThrow(/password authentication failed|no password was provided|SASL/);
    // and initdb's copy of it is gone
    expect(readdirSync(dir).filter((f) => f.startsWith(".initdb-password"))).toEqual([]);
    expect(await show(pgi.url)).toEqual({ fsync: "on", synchronous_commit: "on", full_page_writes: "on" });
    expect(pgi.settings).toMatchObject({ fsync: "on", synchronous_commit: "on", full_page_writes: "on" });
    expect(pgi.settings.version).toMatch(/^\d+\.\d+/);
    const [dataDir] = await query<{ dir: string }>(pgi.url, "SELECT current_setting('data_directory') AS dir");
    expect(dataDir?.dir).toBe(path.join(dir, "data"));

    // a committed row survives a stop and a start with keepData
    await query(pgi.url, "CREATE TABLE kept (n int); INSERT INTO kept VALUES (42)");
    expect(await stopPostgresInstance(dir)).toBe(true);
    expect(isAlive(pgi.pid)).toBe(false);
    expect(await connects("127.0.0.1", 18030)).toBe(false);
    const again = await startPostgresInstance({ dir, settings: DURABLE, database: "target", keepData: true });
    expect(await query(again.url, "SELECT n FROM kept")).toEqual([{ n: 42 }]);
    expect(await stopPostgresInstance(dir)).toBe(true);
    expect(await stopPostgresInstance(dir)).toBe(false);
  });

  it("with scratch settings has them off, and starts from an empty cluster unless told to keep it", { timeout: 180_000 }, async () => {
    const dir = dirFor("scratch");
    const first = await startPostgresInstance({ dir, settings: SCRATCH });
    expect(first.database).toBe("app");
    expect(await show(first.url)).toEqual({ fsync: "off", synchronous_commit: "off", full_page_writes: "off" });
    await query(first.url, "CREATE TABLE gone (n int)");
    // a second start in the same directory stops the first server and starts empty
    const second = await startPostgresInstance({ dir, settings: SCRATCH });
    expect(isAlive(first.pid)).toBe(false);
    expect(await query(second.url, "SELECT to_regclass('gone') AS t")).toEqual([{ t: null }]);
    await stopPostgresInstance(dir);
    expect(isAlive(second.pid)).toBe(false);
  });

  it("refuses a database name that is not a plain identifier, naming it", async () => {
    await expect(startPostgresInstance({ dir: dirFor("bad"), settings: DURABLE, database: 'x"; DROP' })).rejects.toThrow(
      /database name "x\\"; DROP" is not allowed/,
    );
  });
});
