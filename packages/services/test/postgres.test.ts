import os from "node:os";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDatabase, postgresUrl, status, up } from "../src/index.ts";
import { connects } from "./helpers.ts";

async function withClient<T>(url: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

describe("postgres", () => {
  const database = `services_test_${process.pid}_${Date.now()}`;

  beforeAll(async () => {
    await up(["postgres"]);
  });

  afterAll(async () => {
    await withClient(postgresUrl(), (c) => c.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`));
  });

  it("starting it twice leaves the same server running", async () => {
    const [first] = await up(["postgres"]);
    const [second] = await up(["postgres"]);
    expect(first?.running).toBe(true);
    expect(first?.pid).toBeGreaterThan(0);
    expect(second?.pid).toBe(first?.pid);
  });

  it("cannot be corrupted by a crash (fsync, full pages), and commits the portal's database synchronously, tests' databases not", async () => {
    const show = (url: string) =>
      withClient(url, async (c) => {
        const get = async (name: string) => (await c.query<Record<string, string>>(`SHOW ${name}`)).rows[0]![name];
        return { fsync: await get("fsync"), full_page_writes: await get("full_page_writes"), synchronous_commit: await get("synchronous_commit") };
      });
    const durable = await createDatabase(`${database}_durable`, { durable: true });
    try {
      expect(await show(durable)).toEqual({ fsync: "on", full_page_writes: "on", synchronous_commit: "on" });
      expect(await show(await createDatabase(database))).toEqual({ fsync: "on", full_page_writes: "on", synchronous_commit: "off" });
    } finally {
      await withClient(postgresUrl(), (c) => c.query(`DROP DATABASE IF EXISTS "${database}_durable" WITH (FORCE)`));
    }
  });

  it("answers SELECT 1", async () => {
    const { rows } = await withClient(postgresUrl(), (c) => c.query<{ one: number }>("SELECT 1 AS one"));
    expect(rows).toEqual([{ one: 1 }]);
  });

  it("createDatabase drops the old database when fresh and keeps it otherwise", async () => {
    const url = await createDatabase(database);
    expect(url).toBe(postgresUrl(database));
    await withClient(url, (c) => c.query("CREATE TABLE leftover (id int)"));

    await createDatabase(database, { fresh: false });
    const kept = await withClient(url, (c) => c.query("SELECT to_regclass('leftover') AS t"));
    expect(kept.rows[0].t).toBe("leftover");

    await createDatabase(database);
    const dropped = await withClient(url, (c) => c.query("SELECT to_regclass('leftover') AS t"));
    expect(dropped.rows[0].t).toBeNull();
  });

  it("createDatabase refuses a name that is not a plain identifier", async () => {
    await expect(createDatabase('x"; DROP DATABASE postgres; --')).rejects.toThrow(/not allowed/);
  });

  it("status reports it running with its URL and pid", async () => {
    const [s] = await status(["postgres"]);
    expect(s).toMatchObject({ name: "postgres", running: true, url: postgresUrl() });
    expect(s?.pid).toBeGreaterThan(0);
  });

  it("listens on 127.0.0.1 and on no other address", async () => {
    const { rows } = await withClient(postgresUrl(), (c) =>
      c.query<{ listen: string; addr: string }>("SELECT current_setting('listen_addresses') AS listen, host(inet_server_addr()) AS addr"),
    );
    expect(rows[0]).toEqual({ listen: "127.0.0.1", addr: "127.0.0.1" });
    const port = Number(new URL(postgresUrl()).port);
    const others = Object.values(os.networkInterfaces())
      .flat()
      .filter((a) => a !== undefined && a.address !== "127.0.0.1" && !a.address.startsWith("fe80"));
    for (const a of others) expect(await connects(a!.address, port), a!.address).toBe(false);
  });
});
