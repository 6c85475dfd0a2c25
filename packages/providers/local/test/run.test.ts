import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { readClaim } from "../src/claim.ts";
import { killTarget, restartTarget } from "../src/nodes.ts";
import { isAlive, runningTarget, startTarget, stopTarget } from "../src/run.ts";
import { stateDir, targetDataDir, writeState } from "../src/target-process.ts";

const fixtures = fileURLToPath(new URL("./fixtures", import.meta.url));
const opts = { targetsRoot: fixtures };

afterEach(async () => {
  for (const name of ["healthy", "never-healthy", "crashes"]) await stopTarget(name);
});

describe("the local fixtures", () => {
  it("gives every fixture a port and every started fixture a test file of its own", () => {
    // test files run in parallel and a target's state is keyed by its name: two files starting one fixture stop each other's
    const ports = readdirSync(fixtures).map((d) => (JSON.parse(readFileSync(join(fixtures, d, "target.json"), "utf8")) as { port: number }).port);
    expect(new Set(ports).size).toBe(ports.length);
    const here = fileURLToPath(new URL(".", import.meta.url));
    const startedBy = new Map<string, string[]>();
    for (const file of readdirSync(here).filter((f) => f.endsWith(".test.ts"))) {
      for (const [, name] of readFileSync(join(here, file), "utf8").matchAll(/startTarget\("([a-z-]+)"/g)) {
        if (!startedBy.get(name!)?.includes(file)) startedBy.set(name!, [...(startedBy.get(name!) ?? []), file]);
      }
    }
    expect([...startedBy].filter(([, files]) => files.length > 1)).toEqual([]);
    expect(startedBy.size).toBeGreaterThan(5);
  });
});

describe("starting and stopping a local target", () => {
  it.skipIf(spawnSync("taskset", ["-p", String(process.pid)]).status !== 0)(
    "starts a run's target on the cores it gets and tells it how many, also when it starts again",
    async () => {
      const cores = { list: "0", count: 1 };
      const t = await startTarget("healthy", { ...opts, cores });
      const told = async (url: string) => (await fetch(`${url}/env`)).json() as Promise<Record<string, string | undefined>>;
      const affinity = (pid: number) => /Cpus_allowed_list:\s*(\S+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))![1];
      expect(await told(t.url)).toMatchObject({ SFBENCH_CPUS: "1", GOMAXPROCS: "1", JAVA_TOOL_OPTIONS: expect.stringContaining("-XX:ActiveProcessorCount=1") });
      expect(affinity(t.pid)).toBe("0");
      expect(runningTarget("healthy")?.cores).toEqual(cores);
      const again = await restartTarget("healthy");
      expect(affinity(again.pid)).toBe("0");
      expect((await told(again.url)).SFBENCH_CPUS).toBe("1");
    },
  );

  it("starts a target on loopback, records it, and stops its whole process group", async () => {
    const t = await startTarget("healthy", opts);
    expect(t.url).toBe("http://127.0.0.1:18301");
    expect(await (await fetch(`${t.url}/`)).text()).toBe("127.0.0.1");
    expect(runningTarget("healthy")?.pid).toBe(t.pid);
    await expect(startTarget("healthy", opts)).rejects.toThrow(/already running/);
    expect(await stopTarget("healthy")).toBe(true);
    expect(isAlive(t.pid)).toBe(false);
    expect(runningTarget("healthy")).toBeUndefined();
    expect(await stopTarget("healthy")).toBe(false);
  });

  it("never signals a process that took a dead target's pid, and starts it again while that process runs", async () => {
    // a busy machine reuses pids within minutes (32768 of them here): a state file left by a target that died names one
    const stranger = spawn("sleep", ["60"], { detached: true, stdio: "ignore", env: { PATH: process.env.PATH ?? "" } });
    const pid = stranger.pid!;
    try {
      const at = new Date().toISOString();
      const url = "http://127.0.0.1:18301";
      const log = join(stateDir(), "healthy.log");
      const dead = {
        name: "healthy",
        pid,
        port: 18301,
        url,
        log,
        startedAt: at,
        targetsRoot: fixtures,
        nodes: [{ index: 0, pid, port: 18301, url, log, dataDir: targetDataDir("healthy"), startedAt: at }],
        balancer: { pid, port: 18301, log, backendsFile: join(stateDir(), "healthy.balancer.json") },
      };
      writeState(dead);
      await expect(killTarget("healthy")).rejects.toThrow(/no running process to kill/);
      writeState(dead);
      expect(await stopTarget("healthy")).toBe(false);
      expect(isAlive(pid)).toBe(true);
      writeState(dead);
      expect(runningTarget("healthy")).toBeUndefined();
      const t = await startTarget("healthy", { ...opts, port: "free" });
      expect(await (await fetch(`${t.url}/`)).text()).toBe("127.0.0.1");
      expect(await stopTarget("healthy")).toBe(true);
      expect(isAlive(pid)).toBe(true);
    } finally {
      process.kill(-pid, "SIGKILL");
    }
  });

  it('with port "free" starts on another port while something else holds the manifest\'s', async () => {
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(18301, "127.0.0.1", resolve));
    try {
      await expect(startTarget("healthy", opts)).rejects.toThrow(/port 18301 on 127\.0\.0\.1 is in use/);
      const t = await startTarget("healthy", { ...opts, port: "free" });
      expect(t.port).not.toBe(18301);
      expect(t.url).toBe(`http://127.0.0.1:${t.port}`);
      expect(await (await fetch(`${t.url}/`)).text()).toBe("127.0.0.1");
    } finally {
      await new Promise((resolve) => holder.close(resolve));
    }
  });

  it("starts a run's target only once the run that holds it has stopped it", async () => {
    const first = await startTarget("healthy", { ...opts, port: "free", forRun: true });
    const notes: string[] = [];
    const second = startTarget("healthy", { ...opts, port: "free", forRun: true, onProgress: (m) => notes.push(m) });
    const deadline = performance.now() + 10_000;
    while (!notes.length && performance.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(notes[0]).toMatch(/^waiting for healthy: another run holds it \(process \d+, since \d\d:\d\d:\d\d UTC\); one target, one run at a time$/);
    expect(runningTarget("healthy")?.pid).toBe(first.pid);
    await stopTarget("healthy");
    const t = await second;
    expect(t.pid).not.toBe(first.pid);
    expect(await (await fetch(`${t.url}/`)).text()).toBe("127.0.0.1");
    expect(notes).toContain("healthy is free: starting it");
    expect(readClaim("healthy")).toMatchObject({ pid: process.pid, purpose: "run" });
    await stopTarget("healthy");
    expect(readClaim("healthy")).toBeUndefined();
  });

  it("refuses at once a run of a target started to stay up, and the other way round", async () => {
    const up = await startTarget("healthy", { ...opts, port: "free" });
    await expect(startTarget("healthy", { ...opts, port: "free", forRun: true })).rejects.toThrow(
      `target healthy is already running at ${up.url} (pid ${up.pid}); stop it with: sfbench target down healthy`,
    );
    await stopTarget("healthy");
    await startTarget("healthy", { ...opts, port: "free", forRun: true });
    await expect(startTarget("healthy", { ...opts, port: "free" })).rejects.toThrow(/^target healthy is already running at /);
  });

  it("takes over a claim whose holder exited with nothing of the target left", async () => {
    const gone = spawnSync("true").pid!;
    mkdirSync(stateDir(), { recursive: true });
    writeFileSync(join(stateDir(), "healthy.claim"), JSON.stringify({ pid: gone, purpose: "run", since: new Date().toISOString() }));
    const t = await startTarget("healthy", { ...opts, port: "free", forRun: true });
    expect(readClaim("healthy")?.pid).toBe(process.pid);
    expect(isAlive(t.pid)).toBe(true);
  });

  it("fails with the exit code and the log when the target dies during startup", async () => {
    await expect(startTarget("crashes", opts)).rejects.toThrow(/target exited with code 3 during startup; last log lines:\ncannot connect to the database/);
    expect(runningTarget("crashes")).toBeUndefined();
  });

  it("gives up on a target that never becomes healthy, and leaves no process behind", async () => {
    const started = Date.now();
    await expect(startTarget("never-healthy", opts)).rejects.toThrow(/not healthy within 2 s \(http:\/\/127\.0\.0\.1:18303\/health: answered 503\)/);
    expect(Date.now() - started).toBeLessThan(5000);
    expect(runningTarget("never-healthy")).toBeUndefined();
    await new Promise((r) => setTimeout(r, 200));
    await expect(fetch("http://127.0.0.1:18303/health")).rejects.toThrow();
  });
});
