/**
 * A hostile image on real podman (a fixture built offline from the local
 * Node base): before it serves, its entrypoint tries the installation's
 * servers (the shared PostgreSQL that holds the portal's database, the
 * worker's queue in Redis, sfbench's Kafka, a running k6's REST API, an SMTP
 * relay on the host's loopback, a server on the host's loopback and one on
 * all its addresses) on its own loopback, at its network's gateway and at the
 * host's own address, another run's target at that run's own address, and
 * the metadata address, then forks until the kernel refuses, writes to
 * /data until the disk does and writes to its image's files. Nothing
 * answers, the fork bomb stops at the run's pids limit, the writes at its
 * disk quota and at the read-only root, its ids are a block of the run's own
 * on the host, the other run and the installation's servers are unharmed,
 * and the hostile run itself is measured like any other: it serves once it
 * is done, with a Redis and a Kafka broker of its run's own. What the
 * installation holds (a table of results in the shared PostgreSQL, a
 * queue's jobs in Redis) reads the same after it. Its servers' disk on the
 * host is watched: past the run's quota they are killed and the run ends
 * with the reason.
 */
import { execFile, spawn, type ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { connect, createServer, type AddressInfo, type Server } from "node:net";
import { networkInterfaces, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findTarget } from "@sfbench/catalogue";
import pg from "pg";
import { createDatabase, freePort, k6Path, ports, redisAnswers, redisUrl, up } from "@sfbench/services";
import { isAlive } from "@sfbench/provider-local";
import { containerName, PIDS_LIMIT, podName, readContainerState, startContainerTarget, teardownRun, userNamespaceBase } from "../src/container.ts";
import { containerTargetControl } from "../src/control.ts";
import { buildTargetImage } from "../src/image.ts";
import { podman } from "../src/podman.ts";

const execFileAsync = promisify(execFile);
const targetsRoot = fileURLToPath(new URL("./fixtures", import.meta.url));
const hostileRun = `test-hostile-${randomUUID().slice(0, 8)}`;
const otherRun = `test-other-${randomUUID().slice(0, 8)}`;
const servers: Server[] = [];
let k6: ChildProcess | undefined;
const k6Script = join(tmpdir(), `sfbench-hostile-k6-${randomUUID().slice(0, 8)}.js`);

/** A real k6, paused (so it sends nothing) with its REST API on a loopback port, as a run's k6 has it while it loads a target. */
async function k6Api(): Promise<number> {
  const port = await freePort();
  writeFileSync(k6Script, "export default function () {}\n");
  k6 = spawn(await k6Path(), ["run", "--paused", `--address=127.0.0.1:${port}`, "--quiet", k6Script], { stdio: "ignore" });
  for (const deadline = performance.now() + 60_000; ; await new Promise((r) => setTimeout(r, 200))) {
    if (
      await fetch(`http://127.0.0.1:${port}/v1/status`).then(
        (r) => r.ok,
        () => false,
      )
    )
      return port;
    if (performance.now() > deadline || k6.exitCode !== null) throw new Error(`k6's REST API did not answer on 127.0.0.1:${port}`);
  }
}

const listen = async (host: string, greeting = "") => {
  const s = createServer((c) => c.end(greeting));
  servers.push(s);
  await new Promise<void>((r) => s.listen(0, host, r));
  return (s.address() as AddressInfo).port;
};

/** One command to the installation's Redis, with its password; resolves with the raw reply. */
function redis(...command: string[]): Promise<string> {
  const password = decodeURIComponent(new URL(redisUrl()).password);
  const bulk = (words: string[]) => `*${words.length}\r\n${words.map((w) => `$${Buffer.byteLength(w)}\r\n${w}\r\n`).join("")}`;
  return new Promise((resolve, reject) => {
    const socket = connect({ host: "127.0.0.1", port: ports.redis }, () => socket.write(bulk(["AUTH", password]) + bulk(command)));
    let reply = "";
    socket.on("data", (chunk) => {
      reply += chunk.toString();
      // +OK to AUTH, then the command's whole reply (a list's: its header and two lines per element)
      const lines = reply.split("\r\n").slice(1, -1);
      const head = lines[0];
      const want = head?.startsWith("*") ? 1 + 2 * Math.max(0, Number(head.slice(1))) : 1;
      if (head !== undefined && lines.length >= want) {
        socket.end();
        resolve(lines.slice(0, want).join("\n"));
      }
    });
    socket.setTimeout(5_000, () => socket.destroy(new Error(`Redis did not answer ${command[0]} within 5 s`)));
    socket.on("error", reject);
  });
}

/** The run's disk quota here: small, so that writing past it is quick. */
const QUOTA_MIB = 128;
const quotaBefore = process.env.SFBENCH_RUN_DISK_MIB;

/** What the installation holds, written before the hostile run and read after it: a portal's table in the shared PostgreSQL, a queue's jobs in Redis. */
// one database, made afresh each time: the shared server keeps no trail of past runs of this test
const sentinel = { database: "hostile_sentinel", queue: `bull:hostile-sentinel-${randomUUID().slice(0, 8)}:wait` };
const JOBS = ["run-1", "run-2", "run-3"];
const RESULTS = [
  { id: "r1", system: "node-postgres", throughput: 227.5 },
  { id: "r2", system: "statefun", throughput: 318.25 },
];
let databaseUrl = "";

async function readResults(): Promise<unknown[]> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return (await client.query(`SELECT id, system, throughput FROM "Result" ORDER BY id`)).rows;
  } finally {
    await client.end();
  }
}

beforeAll(async () => {
  await up(["postgres", "redis", "kafka", "k6"]);
  process.env.SFBENCH_RUN_DISK_MIB = String(QUOTA_MIB);
  databaseUrl = await createDatabase(sentinel.database, { fresh: true, durable: true });
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  await client.query(`CREATE TABLE "Result" (id text PRIMARY KEY, system text NOT NULL, throughput double precision NOT NULL)`);
  for (const r of RESULTS) await client.query(`INSERT INTO "Result" VALUES ($1, $2, $3)`, [r.id, r.system, r.throughput]);
  await client.end();
  expect(await readResults()).toEqual(RESULTS);
  await redis("DEL", sentinel.queue);
  await redis("RPUSH", sentinel.queue, ...JOBS);
});

afterAll(async () => {
  await redis("DEL", sentinel.queue).catch(() => undefined);
  // each on its own: one that fails leaves nothing of the other behind
  const torn = await Promise.allSettled([teardownRun(hostileRun), teardownRun(otherRun)]);
  for (const s of servers) s.close();
  k6?.kill("SIGKILL");
  rmSync(k6Script, { force: true });
  if (quotaBefore === undefined) delete process.env.SFBENCH_RUN_DISK_MIB;
  else process.env.SFBENCH_RUN_DISK_MIB = quotaBefore;
  for (const t of torn) if (t.status === "rejected") throw t.reason;
});

/** The address of a run's pod on its own network. */
async function podAddress(runId: string): Promise<string> {
  const infra = (await podman(["pod", "inspect", "--format", "{{.InfraContainerID}}", podName(runId)])).stdout.trim();
  return (await podman(["inspect", "--format", "{{range .NetworkSettings.Networks}}{{.IPAddress}}{{end}}", infra])).stdout.trim();
}

describe("a hostile image", () => {
  it("reaches nothing of the installation or of another run, stops at the pids limit, the disk quota and its read-only files, and still runs with a Redis and a Kafka of its own", async () => {
    const machine = { name: "test-1cpu-2gib", cpus: 1, memoryBytes: 2 * 2 ** 30 };
    const hello = findTarget("hello", targetsRoot).manifest;
    const otherPort = await freePort();
    const other = await startContainerTarget({
      runId: otherRun,
      image: (await buildTargetImage("hello", { targetsRoot })).ref,
      manifest: hello,
      machine,
      port: otherPort,
    });
    const own = Object.values(networkInterfaces())
      .flat()
      .find((a) => a && a.family === "IPv4" && !a.internal && !a.address.startsWith("10.8"))?.address;
    const probe = {
      "the shared PostgreSQL (the portal's database)": ports.postgres,
      "the worker's queue (Redis)": ports.redis,
      "sfbench's Kafka (span lines)": ports.kafka,
      "a running k6's REST API": await k6Api(),
      // where the portal's mail goes (SFBENCH_SMTP_HOST/PORT): a relay on the host's loopback
      "an SMTP relay": await listen("127.0.0.1", "220 relay.example ESMTP\r\n"),
      "a server on the host's loopback": await listen("127.0.0.1"),
      "a server on all the host's addresses": await listen("0.0.0.0"),
      "another run's target": otherPort,
    };
    const base = findTarget("hostile", targetsRoot).manifest;
    const manifest = {
      ...base,
      local: {
        ...base.local!,
        env: {
          PROBE_PORTS: JSON.stringify(probe),
          // stops a fill the quota did not stop, at twice the quota
          FILL_MAX_MIB: String(2 * QUOTA_MIB),
          PROBE_HOSTS: JSON.stringify({ "the host's own address": own, "the other run's own address": await podAddress(otherRun) }),
        },
      },
    };
    const image = (await buildTargetImage("hostile", { targetsRoot })).ref;
    const started = await startContainerTarget({ runId: hostileRun, image, manifest, machine, port: await freePort() });
    const report = (await (await fetch(`${started.url}/report`)).json()) as {
      gateway: string;
      reached: Record<string, string>;
      forks: { started: number; refused?: string };
      disk: { mib: number; refused?: string };
      image: Record<string, string>;
      uidMap: number[][];
      gidMap: number[][];
      redis: { host: string; port: number; answer: string };
      kafka: { host: string; port: number; answer: string };
      cpus: string;
    };

    expect(report.gateway).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
    // told the cores its class gives it before it started
    expect(report.cpus).toBe("1");
    // every port at every address was tried, and none answered
    expect(Object.keys(report.reached)).toHaveLength(Object.keys(probe).length * 4 + 1);
    expect(Object.entries(report.reached).filter(([, how]) => how === "connected")).toEqual([]);
    // the fork bomb met the limit, not the host's
    expect(report.forks.refused).toBe("EAGAIN");
    expect(report.forks.started).toBeLessThan(PIDS_LIMIT);
    // the writes met the run's disk, not the machine's
    expect(report.disk.refused).toBe("ENOSPC");
    expect(report.disk.mib).toBeLessThan(QUOTA_MIB);
    // the image's files cannot be changed: not those of its root, not even those its user owns
    expect(report.image).toEqual({ "/app/hostile.mjs": "EROFS", "/etc/passwd": "EACCES", "/usr/local/bin/node": "EACCES" });
    // its ids are a block of the run's own, above every account of the host: root inside is nobody outside
    const idBase = userNamespaceBase(hostileRun);
    expect(idBase).toBeGreaterThanOrEqual(2 ** 24);
    expect(report.uidMap).toEqual([[0, idBase, 65536]]);
    expect(report.gidMap).toEqual([[0, idBase, 65536]]);
    const pid = (await podman(["inspect", "--format", "{{.State.Pid}}", containerName(hostileRun, 0)])).stdout.trim();
    expect(readFileSync(`/proc/${pid}/status`, "utf8")).toMatch(new RegExp(`^Uid:\\s+${idBase + 1000}\\s`, "m"));
    // the Redis it declared is one of the run's own, in its namespace, with a password of its own; the worker's is out of reach
    expect(report.redis).toEqual({ host: "127.0.0.1", port: 6379, answer: "+OK +PONG" });
    expect(started.redis!.url).not.toContain(encodeURIComponent(decodeURIComponent(new URL(redisUrl()).password)));
    expect(isAlive(started.redis!.pid)).toBe(true);
    // so is the Kafka broker it declared: it answers in the run's namespace, on Kafka's own port; sfbench's broker is out of reach
    expect(report.kafka).toMatchObject({ host: "127.0.0.1", port: 9092 });
    expect(report.kafka.answer).toMatch(/^correlation 7, error 0, \d{2,} APIs$/);
    expect(isAlive(started.kafka!.pid)).toBe(true);
    // the other run and the installation's servers are unharmed
    expect(await (await fetch(other.url)).json()).toEqual({ uid: 1000, host: "0.0.0.0" });
    expect(await redisAnswers()).toBe(true);
    expect(await readResults()).toEqual(RESULTS);
    expect(await redis("LRANGE", sentinel.queue, "0", "-1")).toBe(["*3", ...JOBS.flatMap((j) => [`$${j.length}`, j])].join("\n"));
    // kill -9 of its one node takes its Redis with it, as it would a local target's; its Kafka broker, the log a dataflow
    // system replays from, stays up, as a local target's does; a restart brings Redis back
    const control = await containerTargetControl(started, manifest);
    expect(control.pids()).toEqual(expect.arrayContaining([started.redis!.pid, started.kafka!.pid]));
    await control.kill(0, "SIGKILL");
    expect(isAlive(started.redis!.pid)).toBe(false);
    expect(isAlive(started.kafka!.pid)).toBe(true);
    await control.restart(0);
    const restarted = readContainerState(hostileRun)!;
    expect(isAlive(restarted.redis!.pid)).toBe(true);
    expect(restarted.kafka!.pid).toBe(started.kafka!.pid);
    expect(restarted.redis!.url).not.toBe(started.redis!.url);
    const again = (await (await fetch(`${started.url}/report`)).json()) as typeof report;
    expect(again.redis.answer).toBe("+OK +PONG");
    expect(again.kafka.answer).toMatch(/^correlation 7, error 0, /);
    // its servers write to the host's disk, outside its volume: past the run's quota they are killed, and the run ends saying why
    // (blocks allocated in the broker's directory stand in for records an image would have it keep)
    await execFileAsync("fallocate", ["-l", `${QUOTA_MIB + 16}M`, join(restarted.kafka!.dir, "grown")]);
    const deadline = performance.now() + 30_000;
    while (control.exited() === undefined && performance.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(control.exited()).toMatch(
      new RegExp(`^its servers' data on the host's disk \\(\\d+ MiB\\) passed the run's quota of ${QUOTA_MIB} MiB \\(SFBENCH_RUN_DISK_MIB\\)`),
    );
    // killed: gone once the kernel has ended them, a moment after the signal
    await expect.poll(() => isAlive(restarted.kafka!.pid), { timeout: 15_000 }).toBe(false);
    await expect.poll(() => isAlive(restarted.redis!.pid), { timeout: 15_000 }).toBe(false);
    await expect(control.restart(0)).rejects.toThrow(/cannot start again: its servers' data/);
    // and what is left of it leaves with it
    await teardownRun(hostileRun);
    expect(readContainerState(hostileRun)).toBeUndefined();
  });
});
