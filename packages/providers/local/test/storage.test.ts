/**
 * A target that declares postgres gets a PostgreSQL of its own: durable
 * settings when it promises durability (SHOW over the target's own
 * connection), scratch ones otherwise; its cost pids cover its own process and
 * its own server, never the shared server that the portal and the worker use;
 * it stops with the target, also when the target died first; it is copied
 * with the target's data while stopped, and a restored copy is what the next
 * start finds.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { findTarget } from "@sfbench/catalogue";
import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import { postgresUrl, status, up } from "@sfbench/services";
import { localTargetProvider } from "../src/provider.ts";
import { descendants, isAlive, runningTarget, startTarget, stopTarget, targetDataDir } from "../src/run.ts";
import { costPids, storageFingerprint, targetPostgresDir } from "../src/storage.ts";
import { snapshotTarget } from "../src/snapshot.ts";
import { killTarget } from "../src/nodes.ts";

const fixtures = fileURLToPath(new URL("./fixtures", import.meta.url));
const opts = { targetsRoot: fixtures };

afterEach(async () => {
  for (const name of ["durable-db", "scratch-db"]) await stopTarget(name);
});

interface DbReport {
  fsync: string;
  synchronous_commit: string;
  full_page_writes: string;
  port: number;
  database: string;
  backendPid: number;
}

/** The roots and all their live descendants, from /proc, as the cost of a target's own processes counts them. */
const tree = (roots: number[]): Set<number> => new Set(roots.flatMap((root) => [root, ...descendants(root)]));

describe("a target's own PostgreSQL", () => {
  it("is durable for a durable target: fsync, synchronous_commit and full_page_writes are on where the target writes", { timeout: 180_000 }, async () => {
    const t = await startTarget("durable-db", opts);
    const db = (await (await fetch(`${t.url}/db`)).json()) as DbReport;
    expect(db).toMatchObject({ fsync: "on", synchronous_commit: "on", full_page_writes: "on", database: "target" });
    expect(t.postgres?.port).toBe(db.port);
    expect(db.port).not.toBe(Number(new URL(postgresUrl()).port));
    expect(storageFingerprint(t)).toEqual({
      postgres: { instance: "dedicated", fsync: "on", synchronous_commit: "on", full_page_writes: "on", version: expect.stringMatching(/^\d+/) },
    });
    // other processes (sfbench target down, the worker's sweep) find it in the state file
    expect(runningTarget("durable-db")?.postgres?.pid).toBe(t.postgres!.pid);
  });

  it("has scratch settings for an in-memory target", { timeout: 180_000 }, async () => {
    const t = await startTarget("scratch-db", opts);
    const db = (await (await fetch(`${t.url}/db`)).json()) as DbReport;
    expect(db).toMatchObject({ fsync: "off", synchronous_commit: "off", full_page_writes: "off" });
    expect(storageFingerprint(t)?.postgres).toMatchObject({ instance: "dedicated", fsync: "off" });
  });

  it("is counted in the target's cost, and the shared server with the portal's and the worker's connections is not", { timeout: 180_000 }, async () => {
    await up(["postgres"]);
    // a connection to the shared server, as the portal and the worker hold
    const portal = new pg.Client({ connectionString: postgresUrl() });
    await portal.connect();
    try {
      const portalBackend = (await portal.query<{ pid: number }>("SELECT pg_backend_pid() AS pid")).rows[0]!.pid;
      const [shared] = await status(["postgres"]);
      const t = await startTarget("durable-db", opts);
      const db = (await (await fetch(`${t.url}/db`)).json()) as DbReport;
      const counted = tree(costPids(t));
      expect(costPids(t)).toEqual([t.pid, t.postgres!.pid]);
      expect(counted.has(t.pid)).toBe(true);
      expect(counted.has(t.postgres!.pid)).toBe(true);
      // the backend that serves the target's own connection is a child of its own server
      expect(counted.has(db.backendPid)).toBe(true);
      expect(counted.has(shared!.pid!)).toBe(false);
      expect(counted.has(portalBackend)).toBe(false);
    } finally {
      await portal.end();
    }
  });

  it("stops with the target, and with stopTarget after the target died by itself", { timeout: 180_000 }, async () => {
    const t = await startTarget("durable-db", opts);
    expect(await stopTarget("durable-db")).toBe(true);
    expect(isAlive(t.pid)).toBe(false);
    expect(isAlive(t.postgres!.pid)).toBe(false);

    const again = await startTarget("durable-db", opts);
    process.kill(-again.pid, "SIGKILL");
    while (isAlive(again.pid)) await new Promise((r) => setTimeout(r, 20));
    expect(isAlive(again.postgres!.pid)).toBe(true);
    expect(await stopTarget("durable-db")).toBe(true);
    expect(isAlive(again.postgres!.pid)).toBe(false);
    expect(await stopTarget("durable-db")).toBe(false);
    expect(again.postgres!.dir).toBe(targetPostgresDir("durable-db"));

    // a crash of the whole target takes its PostgreSQL, known as the target's by the data directory it serves
    const third = await startTarget("durable-db", opts);
    const crash = await killTarget("durable-db");
    expect(crash.postgres?.goneAt).toBeDefined();
    expect(isAlive(third.postgres!.pid)).toBe(false);
    expect(await stopTarget("durable-db")).toBe(true);
  });

  it("is copied with the target's data while stopped, and a restored copy is what the next start finds", { timeout: 180_000 }, async () => {
    const provider = localTargetProvider(findTarget("durable-db", fixtures).manifest, opts);
    const rows = async (url: string) => {
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      try {
        await c.query("CREATE TABLE IF NOT EXISTS kept (n int)");
        return (await c.query<{ n: number }>("SELECT n FROM kept ORDER BY n")).rows.map((r) => r.n);
      } finally {
        await c.end();
      }
    };
    const write = async (url: string, n: number) => {
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      await c.query("INSERT INTO kept VALUES ($1)", [n]).finally(() => c.end());
    };
    const copy = mkdtempSync(join(tmpdir(), "sfbench-snapshot-"));
    try {
      const first = await provider.start({ trace: false });
      const url = runningTarget("durable-db")!.postgres!.url;
      expect(await rows(url)).toEqual([]);
      await write(url, 1);
      writeFileSync(join(targetDataDir("durable-db"), "own.txt"), "the target's own file");
      expect(() => snapshotTarget("durable-db", join(copy, "running"))).toThrow(/durable-db is running: its data is copied only while it is stopped/);
      // the provider's snapshot stops it cleanly first: the copy is what its next start would have found
      const bytes = await provider.snapshot!(join(copy, "data"));
      expect(runningTarget("durable-db")).toBeUndefined();
      expect(bytes).toBeGreaterThan(1 << 20);
      expect(first.url).toMatch(/^http:\/\/127\.0\.0\.1:/);

      // a plain start starts on empty data ...
      await provider.start({ trace: false });
      expect(await rows(runningTarget("durable-db")!.postgres!.url)).toEqual([]);
      await write(runningTarget("durable-db")!.postgres!.url, 2);
      await provider.stop();
      // ... and one after a restore on the copy, as it was, whatever came after it
      await provider.restore!(join(copy, "data"));
      await provider.start({ trace: false });
      expect(await rows(runningTarget("durable-db")!.postgres!.url)).toEqual([1]);
      expect(readFileSync(join(targetDataDir("durable-db"), "own.txt"), "utf8")).toBe("the target's own file");
      await provider.stop();
      // the restore holds for one start only
      await provider.start({ trace: false });
      expect(await rows(runningTarget("durable-db")!.postgres!.url)).toEqual([]);
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  });
});
