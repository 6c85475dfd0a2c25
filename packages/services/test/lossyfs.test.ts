/**
 * lossyfs loses exactly what was not fsynced when its daemon is killed: a
 * file written with and without fsync (the negative control: the file system
 * really drops unsynced data), then a real PostgreSQL with its data on the
 * mount, whose acknowledged commits survive the crash when they wait for the
 * disk and are lost when they do not (synchronous_commit off).
 */
import {
  chmodSync,
  closeSync,
  fsyncSync,
  ftruncateSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeSync,
} from "node:fs";
import os from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DURABLE, lossyfsPath, mountLossy, startPostgresInstance, stopPostgresInstance, type LossyMount, type PostgresDurability } from "../src/index.ts";
import { mountedAt } from "../src/lossyfs.ts";
import { statFields, waitFor } from "../src/process.ts";

// under /tmp, open to every user: as root PostgreSQL runs as sfbench-pg and must reach the mount
const root = mkdtempSync(path.join(os.tmpdir(), "sfbench-lossyfs-"));
chmodSync(root, 0o755);
const live = new Set<LossyMount>();
const instances: string[] = [];

async function mount(name: string): Promise<LossyMount> {
  const m = await mountLossy(path.join(root, name, "backing"), path.join(root, name, "mnt"));
  live.add(m);
  return m;
}

async function crash(m: LossyMount): Promise<void> {
  live.delete(m);
  await m.crash();
}

beforeAll(async () => {
  await lossyfsPath();
}, 600_000);

afterAll(async () => {
  for (const dir of instances) await stopPostgresInstance(dir).catch(() => undefined);
  for (const m of live) await m.crash();
  if (readdirSync(root).every((name) => !mountedAt(path.join(root, name, "mnt")))) rmSync(root, { recursive: true, force: true });
});

/** A machine crash under a running PostgreSQL: the disk's cache goes first, then every process of the server, at once. */
async function crashWith(m: LossyMount, postmaster: number): Promise<void> {
  const pids = [postmaster, ...childrenOf(postmaster)];
  await crash(m);
  await killAll(pids);
}

async function killAll(pids: number[]): Promise<void> {
  for (const pid of pids) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // gone already
    }
  }
  // A new postmaster refuses to start while the old one's pid answers kill(0),
  // which a zombie still does until it is reaped: wait for the pids to be gone.
  await waitFor(async () => (pids.some(exists) ? undefined : true), {
    timeoutMs: 10_000,
    describe: () => `the killed server's processes ${pids.join(", ")} are still there`,
  });
}

function exists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

function childrenOf(pid: number): number[] {
  return readdirSync("/proc")
    .filter((name) => /^\d+$/.test(name))
    .map(Number)
    .filter((child) => {
      try {
        return statFields(readFileSync(`/proc/${child}/stat`, "utf8")).ppid === pid;
      } catch {
        return false;
      }
    });
}

async function connect(url: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url });
  client.on("error", () => undefined); // the crash ends the connection
  await client.connect();
  return client;
}

async function query<R extends pg.QueryResultRow>(url: string, text: string): Promise<R[]> {
  const client = await connect(url);
  try {
    return (await client.query<R>(text)).rows;
  } finally {
    await client.end();
  }
}

const ROWS = 200;

/** Inserts ROWS rows from `first`, one transaction each: every INSERT returns once PostgreSQL acknowledged its commit. */
async function insertAcknowledged(client: pg.Client, first = 0): Promise<void> {
  for (let n = first; n < first + ROWS; n++) await client.query("INSERT INTO acked VALUES ($1)", [n]);
}

const countAcked = async (url: string) => Number((await query<{ count: string }>(url, "SELECT count(*) FROM acked"))[0]!.count);

/** The rows of `acked` that a server with `settings` still has after a machine crash right after acknowledging them. */
async function rowsAfterCrash(name: string, settings: PostgresDurability, prepare: (client: pg.Client) => Promise<void>): Promise<number> {
  const m = await mount(name);
  const dir = path.join(m.mountpoint, "pg");
  instances.push(dir);
  const server = await startPostgresInstance({ dir, settings });
  const client = await connect(server.url);
  await client.query("CREATE TABLE acked (n int PRIMARY KEY)");
  await prepare(client);
  await insertAcknowledged(client);
  await crashWith(m, server.pid);
  await client.end().catch(() => undefined);

  const again = await mount(name);
  const restarted = await startPostgresInstance({ dir, settings, keepData: true });
  try {
    return await countAcked(restarted.url);
  } finally {
    await stopPostgresInstance(dir);
    live.delete(again);
    await again.unmount();
  }
}

describe("lossyfs", () => {
  it("reads back unsynced writes, and a crash loses them while fsynced data stays", async () => {
    const m = await mount("files");
    const file = path.join(m.mountpoint, "wal");
    const grown = path.join(m.mountpoint, "grown");
    const cut = path.join(m.mountpoint, "cut");

    const fd = openSync(file, "w+");
    writeSync(fd, "A".repeat(10));
    fsyncSync(fd);
    writeSync(fd, "B".repeat(5000));
    closeSync(fd); // close is not a sync
    const g = openSync(grown, "w");
    writeSync(g, "x".repeat(100));
    fsyncSync(g);
    writeSync(g, "y".repeat(9000), 100);
    closeSync(g);
    const c = openSync(cut, "w+");
    writeSync(c, "z".repeat(100));
    fsyncSync(c);
    ftruncateSync(c, 10);
    ftruncateSync(c, 50);
    closeSync(c);
    writeFileUnsynced(path.join(m.mountpoint, "never-synced"), "lost");

    // read-your-writes, sizes included
    expect(readFileSync(file, "utf8")).toBe("A".repeat(10) + "B".repeat(5000));
    expect(statSync(grown).size).toBe(9100);
    expect(readFileSync(cut, "utf8")).toBe("z".repeat(10) + "\0".repeat(40));
    // the backing file has only what was fsynced
    expect(statSync(path.join(m.backing, "wal")).size).toBe(10);

    await crash(m);
    expect(mountedAt(m.mountpoint)).toBe(false);
    const again = await mount("files");
    expect(readFileSync(file, "utf8")).toBe("A".repeat(10));
    expect(statSync(grown).size).toBe(100);
    expect(readFileSync(cut, "utf8")).toBe("z".repeat(100));
    // a created file is metadata, there at once; its data was never synced
    expect(readFileSync(path.join(again.mountpoint, "never-synced"), "utf8")).toBe("");

    // a clean unmount writes every buffer out
    writeFileUnsynced(file, "kept");
    live.delete(again);
    await again.unmount();
    expect(mountedAt(again.mountpoint)).toBe(false);
    expect(readFileSync(path.join(again.backing, "wal"), "utf8")).toBe("kept");
  });

  it("keeps every acknowledged commit of a durable PostgreSQL across a crash", async () => {
    expect(await rowsAfterCrash("durable", DURABLE, async () => undefined)).toBe(ROWS);
  });

  it("loses acknowledged commits of a PostgreSQL with synchronous_commit off", async () => {
    const asyncCommit = { ...DURABLE, synchronous_commit: false };
    const survived = await rowsAfterCrash("async", asyncCommit, async (client) => {
      // The WAL writer flushes an asynchronous commit within wal_writer_delay
      // of the last flush. At the default 200 ms it has flushed CREATE TABLE
      // after this sleep; from then on, at 10 s, it only writes (into the
      // page cache: lossyfs's buffer) until the crash, a second later.
      await sleep(600);
      await client.query("ALTER SYSTEM SET wal_writer_delay = '10s'");
      await client.query("SELECT pg_reload_conf()");
      await sleep(300);
      const { rows } = await client.query<{ wal_writer_delay: string }>("SHOW wal_writer_delay");
      expect(rows[0]?.wal_writer_delay).toBe("10s");
    });
    // Measured: none survive, and none survive a kill -9 of the server alone
    // either, since these commits never left PostgreSQL's WAL buffers. The
    // next test is the one only a lost page cache can fail.
    expect(survived).toBeLessThan(ROWS);
  });

  it("loses the acknowledged commits of a PostgreSQL with fsync off, which a kill -9 of the server alone keeps", async () => {
    const m = await mount("unsynced");
    const dir = path.join(m.mountpoint, "pg");
    instances.push(dir);
    // What is to survive is made durable on a durable server stopped
    // cleanly: its shutdown checkpoint is fsynced, at the start of a WAL
    // segment of its own, so nothing after it renames or removes what
    // recovery reads.
    const durably = async (url: string, sql: string) => {
      await query(url, `${sql}; SELECT pg_switch_wal()`);
      await stopPostgresInstance(dir);
    };
    const setup = await startPostgresInstance({ dir, settings: DURABLE });
    await durably(setup.url, "CREATE TABLE acked (n int PRIMARY KEY)");

    // fsync off: a commit is acknowledged once its WAL is written (into the page cache), never fsynced
    const unsynced = { ...DURABLE, fsync: false };
    const first = await startPostgresInstance({ dir, settings: unsynced, keepData: true });
    let client = await connect(first.url);
    await insertAcknowledged(client);
    await client.end();
    // the crash sfbench did before lossyfs: the server dies, the page cache
    // (lossyfs's buffer) lives, and every row is back
    await killAll([first.pid, ...childrenOf(first.pid)]);
    const afterKill = await startPostgresInstance({ dir, settings: DURABLE, keepData: true });
    expect(await countAcked(afterKill.url)).toBe(ROWS);
    await durably(afterKill.url, "SELECT 1");

    const second = await startPostgresInstance({ dir, settings: unsynced, keepData: true });
    client = await connect(second.url);
    await insertAcknowledged(client, ROWS);
    await client.end();
    // a machine crash: what was never fsynced is gone
    await crashWith(m, second.pid);
    const again = await mount("unsynced");
    // postmaster.pid was never fsynced either: it is there (a create is metadata), empty, and
    // pg_ctl refuses to start over it, as after a real crash; the operator's fix is to remove it
    const pidFile = path.join(dir, "data", "postmaster.pid");
    expect(statSync(pidFile).size).toBe(0);
    rmSync(pidFile);
    const restarted = await startPostgresInstance({ dir, settings: unsynced, keepData: true });
    expect(await countAcked(restarted.url)).toBe(ROWS);
    await stopPostgresInstance(dir);
    live.delete(again);
    await again.unmount();
  });
});

function writeFileUnsynced(file: string, text: string): void {
  mkdirSync(path.dirname(file), { recursive: true });
  const fd = openSync(file, "w");
  writeSync(fd, text);
  closeSync(fd);
}
