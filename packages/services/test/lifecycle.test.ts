import { execFile } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { chmod, mkdtemp, rm, stat } from "node:fs/promises";
import { promisify } from "node:util";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ping } from "../src/redis.ts";
import { connects, freePort, servicesIn } from "./helpers.ts";

const execFileAsync = promisify(execFile);

async function answersWithin(probe: () => Promise<boolean>, deadlineMs: number): Promise<boolean> {
  const until = performance.now() + deadlineMs;
  while (!(await probe())) {
    if (performance.now() > until) return false;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return true;
}

// Each service here runs in a child process with its own SFBENCH_HOME and ports, so stopping
// it cannot disturb the shared servers the other test files use.
describe("services on a private home", () => {
  let home: string;
  let env: Record<string, string>;

  beforeAll(async () => {
    home = await mkdtemp(path.join(os.tmpdir(), "sfbench-home-"));
    await chmod(home, 0o755); // mkdtemp makes it 0700; as root, postgres runs as sfbench-pg and must get in
    env = {
      SFBENCH_HOME: home,
      SFBENCH_PG_PORT: String(await freePort()),
      SFBENCH_REDIS_PORT: String(await freePort()),
      SFBENCH_KAFKA_PORT: String(await freePort(2)),
    };
  });

  afterAll(async () => {
    await servicesIn(env, "down", ["postgres", "redis", "kafka"]);
    await rm(home, { recursive: true, force: true });
  });

  it("two concurrent starts of redis share one server", async () => {
    const [a, b] = await Promise.all([servicesIn(env, "up", ["redis"]), servicesIn(env, "up", ["redis"])]);
    expect(a?.[0]?.running).toBe(true);
    expect(b?.[0]?.pid).toBe(a?.[0]?.pid);
  });

  it("redis stops on down, down twice is fine, and it starts again", async () => {
    const port = Number(env.SFBENCH_REDIS_PORT);
    const [before] = (await servicesIn(env, "up", ["redis"])) ?? [];
    await servicesIn(env, "down", ["redis"]);
    await servicesIn(env, "down", ["redis"]);
    expect(await connects("127.0.0.1", port)).toBe(false);
    const [stopped] = (await servicesIn(env, "status", ["redis"])) ?? [];
    expect(stopped?.running).toBe(false);

    const [after] = (await servicesIn(env, "up", ["redis"])) ?? [];
    expect(after?.running).toBe(true);
    expect(after?.pid).not.toBe(before?.pid);
  });

  it("redis asks for the password kept beside it, and replaces a server started without one", async () => {
    const port = Number(env.SFBENCH_REDIS_PORT);
    const [first] = (await servicesIn(env, "up", ["redis"])) ?? [];
    const password = readFileSync(path.join(home, "redis", "password"), "utf8").trim();
    expect((await stat(path.join(home, "redis", "password"))).mode & 0o777).toBe(0o600);
    expect(first?.url).toBe(`redis://:${encodeURIComponent(password)}@127.0.0.1:${port}`);
    expect(await ping(port, 2_000, null)).toBe(false);
    expect(await ping(port, 2_000, "not-the-password")).toBe(false);
    expect(await ping(port, 2_000, password)).toBe(true);

    // a server of an older sfbench, which asked for nothing, on the same port: replaced by one that asks
    await servicesIn(env, "down", ["redis"]);
    const config = readFileSync(path.join(home, "redis", "redis.conf"), "utf8").replace(/^requirepass .*$/m, "");
    writeFileSync(path.join(home, "redis", "redis.conf"), config);
    await execFileAsync("redis-server", [path.join(home, "redis", "redis.conf")]);
    // the daemon forks before it listens; on a loaded machine the first ping can come too early
    expect(await answersWithin(() => ping(port, 2_000, null), 30_000)).toBe(true);
    const [replaced] = (await servicesIn(env, "up", ["redis"])) ?? [];
    expect(replaced?.running).toBe(true);
    expect(await ping(port, 2_000, null)).toBe(false);
    expect(await ping(port, 2_000, password)).toBe(true);
  });

  it("postgres starts again after being killed, despite its stale postmaster.pid", async () => {
    const [first] = (await servicesIn(env, "up", ["postgres"])) ?? [];
    expect(first?.running).toBe(true);
    process.kill(first!.pid!, "SIGKILL");

    const [second] = (await servicesIn(env, "up", ["postgres"])) ?? [];
    expect(second?.running).toBe(true);
    expect(second?.pid).not.toBe(first?.pid);

    await servicesIn(env, "down", ["postgres"]);
    expect(await connects("127.0.0.1", Number(env.SFBENCH_PG_PORT))).toBe(false);
  });

  // each Kafka start is a JVM's (10-15 s on a loaded machine): two starts serve the three behaviours
  it("a borrowed kafka is stopped when given back if the borrower started it", async () => {
    const port = Number(env.SFBENCH_KAFKA_PORT);
    const started = await servicesIn(env, "borrow", ["kafka"]);
    expect(started.borrowed[0]?.running).toBe(true);
    expect(started.after[0]?.running).toBe(false);
    expect(await connects("127.0.0.1", port)).toBe(false);
  });

  it("a borrowed kafka that was up before stays up, and kafka stops on down with its ports free afterwards", async () => {
    const [up] = (await servicesIn(env, "up", ["kafka"])) ?? [];
    expect(up?.running).toBe(true);
    const kept = await servicesIn(env, "borrow", ["kafka"]);
    expect(kept.borrowed[0]?.pid).toBe(up?.pid);
    expect(kept.after[0]).toMatchObject({ running: true, pid: up?.pid });
    await servicesIn(env, "down", ["kafka"]);
    const port = Number(env.SFBENCH_KAFKA_PORT);
    expect(await connects("127.0.0.1", port)).toBe(false);
    expect(await connects("127.0.0.1", port + 1)).toBe(false);
    const [stopped] = (await servicesIn(env, "status", ["kafka"])) ?? [];
    expect(stopped?.running).toBe(false);
  });
});
