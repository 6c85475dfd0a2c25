import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MAX_COST_PROCESSES } from "@sfbench/core";
import { describe, expect, it, vi } from "vitest";
import { descendants, labelOf, processLabel, readStat, type ProcStat } from "../src/cost/proc.ts";
import { cpuBetween, cpuByLabel, ProcessSampler, type ProcSource } from "../src/cost/sampler.ts";
import { splitByProcess, stableCost } from "../src/experiment/phases/stable.ts";
import { tracedCost } from "../src/experiment/phases/traced.ts";
import { planSplit } from "../src/cost/affinity.ts";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A load step's sampler result: the target's CPU as `series` says over 10 s (split by `byProcess`), k6 at a ninth of it. */
function phaseUsage(series: Array<{ t: number; cpuSeconds: number }>, byProcess?: Record<string, number>) {
  const cpuSeconds = series.at(-1)!.cpuSeconds;
  return {
    wallSeconds: 10,
    samples: series.length,
    series: { target: series, generator: series.map((p) => ({ ...p, cpuSeconds: p.cpuSeconds / 9 })) },
    groups: {
      target: {
        cpuSeconds,
        peakRssBytes: 1 << 28,
        processes: byProcess ? Object.keys(byProcess).length : 1,
        cpuFrom: "process-tree" as const,
        ...(byProcess ? { byProcess } : {}),
      },
      generator: { cpuSeconds: cpuSeconds / 9, peakRssBytes: 1 << 26, processes: 1, cpuFrom: "process-tree" as const },
    },
  };
}

/**
 * A shell whose child burns `seconds` of CPU time (not of wall time: on a
 * loaded machine it simply takes longer), so the tree has depth 2.
 */
function burner(seconds: number) {
  const script = `const a = Buffer.alloc(64 << 20, 1); const used = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1e6; }; while (used() < ${seconds}) {} a[0]`;
  return spawn("sh", ["-c", `node -e '${script}'`], { stdio: "ignore" });
}

describe("process sampling from /proc", () => {
  it("reads this process's own stat", () => {
    const s = readStat(process.pid)!;
    expect(s.ppid).toBe(process.ppid);
    expect(s.rssBytes).toBeGreaterThan(10 << 20);
    expect(s.cpuSeconds).toBeGreaterThan(0);
  });

  it("finds descendants of a root", async () => {
    const child = burner(0.5);
    // until the shell has started node (a loaded machine may take a while)
    let tree = descendants([child.pid!]);
    for (let i = 0; i < 100 && tree.length < 2; i++) {
      await sleep(20);
      tree = descendants([child.pid!]);
    }
    expect(tree.map((p) => p.pid)).toContain(child.pid);
    expect(tree.length).toBeGreaterThanOrEqual(2);
    await new Promise((r) => child.on("exit", r));
  });

  it("measures the CPU seconds and peak memory of a busy tree, and not of an idle one", async () => {
    const busy = burner(1.5);
    const idle = spawn("sleep", ["3"], { stdio: "ignore" });
    const sampler = new ProcessSampler({ busy: () => [busy.pid!], idle: () => [idle.pid!] }, 100);
    sampler.start();
    await new Promise((r) => busy.on("exit", r));
    const result = sampler.stop();
    idle.kill();
    expect(result.groups.busy!.cpuSeconds).toBeGreaterThan(1.0);
    expect(result.groups.busy!.cpuSeconds).toBeLessThan(2.2);
    expect(result.groups.busy!.peakRssBytes).toBeGreaterThan(64 << 20);
    expect(result.groups.idle!.cpuSeconds).toBeLessThan(0.05);
    // the series a window of the phase is read from: its growth over the whole phase is the tree's CPU
    const series = result.series.busy!;
    expect(series.length).toBe(result.samples);
    expect(cpuBetween(series, series[0]!.t, series.at(-1)!.t)).toBeCloseTo(result.groups.busy!.cpuSeconds, 6);
    for (let i = 1; i < series.length; i++) expect(series[i]!.cpuSeconds).toBeGreaterThanOrEqual(series[i - 1]!.cpuSeconds);
  });

  it("counts the CPU of short-lived children that no sample saw, through their parent's reaped time", async () => {
    // ten children of 0.1 CPU-seconds each, one after another, under a shell that outlives them;
    // one sample a minute: only the first and the last sample run, however slow the machine
    const burn = `const used = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1e6; }; while (used() < 0.1) {}`;
    const root = spawn("sh", ["-c", `for i in 1 2 3 4 5 6 7 8 9 10; do node -e '${burn}'; done; sleep 30`], { stdio: "ignore" });
    await sleep(100);
    const sampler = new ProcessSampler({ tree: () => [root.pid!] }, 60_000);
    sampler.start();
    // until the loop is over: the shell's last child is `sleep`
    const cmdline = (pid: number) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, "utf8");
      } catch {
        return "";
      }
    };
    const sleeping = () => descendants([root.pid!]).some((p) => cmdline(p.pid).startsWith("sleep"));
    for (let i = 0; i < 600 && !sleeping(); i++) await sleep(50);
    const result = sampler.stop();
    root.kill();
    expect(result.samples).toBe(2);
    // at least the 1.0 s the loops burned (the first child may have started before the sampler); node's start-up adds some
    expect(result.groups.tree!.cpuSeconds).toBeGreaterThan(0.85);
    expect(result.groups.tree!.cpuSeconds).toBeLessThan(3);
  });

  it("keeps a series that counts a reaped child once, in its parent's reaped time", async () => {
    // children the samples see come and go: until stop() the series held their time twice
    const burn = `const used = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1e6; }; while (used() < 0.15) {}`;
    const root = spawn("sh", ["-c", `for i in 1 2 3 4 5 6; do node -e '${burn}'; done`], { stdio: "ignore" });
    const sampler = new ProcessSampler({ tree: () => [root.pid!] }, 50);
    sampler.start();
    await new Promise((r) => root.on("exit", r));
    const result = sampler.stop();
    const series = result.series.tree!;
    expect(result.groups.tree!.processes).toBeGreaterThan(2);
    expect(series.at(-1)!.cpuSeconds - series[0]!.cpuSeconds).toBeCloseTo(result.groups.tree!.cpuSeconds, 6);
    expect(result.groups.tree!.cpuSeconds).toBeGreaterThan(0.6);
    expect(result.groups.tree!.cpuSeconds).toBeLessThan(4);
    // never more than what the tree had used by the end, as a double count would be
    for (const p of series) expect(p.cpuSeconds).toBeLessThanOrEqual(series.at(-1)!.cpuSeconds + 1e-9);
  });

  /**
   * A scripted /proc of a shell (pid 10) and its child (pid 11). Reading the child with `reapOnRead`
   * set plays the race a loaded machine hits: the shell reaps it just after the sampler read the
   * shell, so the child's time has moved into the shell's reaped time and the child is gone.
   */
  function shellAndChild() {
    const k = { sh: { own: 0.01, reaped: 0, alive: true }, child: { own: 0.1, alive: true }, reapOnRead: false, shellExitsOnReap: false };
    const stat = (pid: number, ppid: number, own: number, reaped: number): ProcStat => ({
      pid,
      comm: pid === 10 ? "sh" : "node",
      ppid,
      state: "R",
      cpuSeconds: own,
      childCpuSeconds: reaped,
      rssBytes: 1 << 20,
      start: pid,
    });
    const proc: ProcSource = {
      livePids: () => [...(k.sh.alive ? [10] : []), ...(k.child.alive ? [11] : [])],
      readStat: (pid) => {
        if (pid === 10) return k.sh.alive ? stat(10, 1, k.sh.own, k.sh.reaped) : undefined;
        if (pid !== 11 || !k.child.alive) return undefined;
        if (!k.reapOnRead) return stat(11, 10, k.child.own, 0);
        k.sh.reaped += k.child.own;
        k.child.alive = false;
        if (k.shellExitsOnReap) k.sh.alive = false;
        return undefined;
      },
      label: (_pid, comm) => comm,
    };
    return { k, sampler: new ProcessSampler({ tree: () => (k.sh.alive ? [10] : []) }, 1000, {}, proc) };
  }

  it("counts a child reaped between its parent's read and its own, in the parent read again", () => {
    const { k, sampler } = shellAndChild();
    sampler.start();
    k.child.own = 0.5;
    k.reapOnRead = true;
    const result = sampler.stop();
    // the child grew 0.4 s and the shell nothing: before, the shell's early read counted the child nowhere
    expect(result.groups.tree!.cpuSeconds).toBeCloseTo(0.4, 9);
    expect(result.groups.tree!.byProcess).toEqual({ sh: expect.closeTo(0.5, 9), node: 0 });
  });

  it("keeps what was seen of a child whose parent reaped it after its read and then left", () => {
    vi.useFakeTimers();
    try {
      const { k, sampler } = shellAndChild();
      sampler.start();
      k.child.own = 0.3;
      vi.advanceTimersByTime(1000);
      k.reapOnRead = true;
      k.shellExitsOnReap = true;
      const result = sampler.stop();
      const series = result.series.tree!;
      expect(series.map((p) => p.cpuSeconds)).toEqual([0, expect.closeTo(0.2, 9), expect.closeTo(0.2, 9)]);
      expect(result.groups.tree!.cpuSeconds).toBeCloseTo(0.2, 9);
    } finally {
      vi.useRealTimers();
    }
  });

  it("splits a tree's CPU by what each process runs", async () => {
    // a shell whose node child burns 1 CPU-second and then stays (a reaped child's time would count under the shell)
    const dir = join(mkdtempSync(join(tmpdir(), "cost-split-")), "app");
    mkdirSync(dir);
    const script = join(dir, "busy.mjs");
    writeFileSync(
      script,
      "const used = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1e6; }; while (used() < 1) {} setTimeout(() => {}, 30000);",
    );
    const root = spawn("sh", ["-c", `node ${script}; true`], { stdio: "ignore" });
    const sampler = new ProcessSampler({ tree: () => [root.pid!] }, 100);
    sampler.start();
    const node = async () => {
      for (let i = 0; i < 600; i++) {
        const child = descendants([root.pid!]).find((p) => p.pid !== root.pid);
        if (child && child.cpuSeconds >= 0.9) return child;
        await sleep(50);
      }
      throw new Error("the node child never burned its second");
    };
    const child = await node();
    expect(processLabel(child.pid)).toBe("node app/busy.mjs");
    const result = sampler.stop();
    root.kill();
    process.kill(child.pid);
    const split = result.groups.tree!.byProcess!;
    expect(Object.keys(split).sort()).toEqual(["node app/busy.mjs", "sh"]);
    expect(split["node app/busy.mjs"]).toBeGreaterThan(0.8);
    expect(split.sh).toBeLessThan(0.1);
    expect(split["node app/busy.mjs"]! + split.sh!).toBeCloseTo(result.groups.tree!.cpuSeconds, 6);
  });

  it("labels a process by its command, and a runtime's by what it runs", () => {
    expect(labelOf("restate-server", ["/x/restate-server", "--config-file", "/d/restate.toml"])).toBe("restate-server");
    expect(labelOf("postgres", ["postgres: sfbench shop 127.0.0.1(5432) idle"])).toBe("postgres");
    expect(labelOf("node", ["/usr/bin/node", "--import", "tsx", "/repo/packages/targets/restate/src/app/main.ts"])).toBe("node app/main.ts");
    expect(labelOf("node", ["node", "-e", "1+1"])).toBe("node");
    expect(labelOf("java", ["java", "-Xmx1g", "-cp", "/a/b.jar:/c", "-Dx=y", "kafka.Kafka", "/d/server.properties"])).toBe("java Kafka");
    expect(labelOf("java", ["java", "-XX:ActiveProcessorCount=1", "-jar", "/t/pekko/target/shop-1.0.jar"])).toBe("java shop-1.0.jar");
    expect(labelOf("python3", ["python3", "/srv/app/main.py"])).toBe("python3 app/main.py");
    // a process names itself: what reaches the board is printable and bounded
    expect(labelOf("evil\u0007\n<b>", [])).toBe("evil??<b>");
    expect(labelOf("node", ["node", `/${"a".repeat(100)}/x.js`]).length).toBe(60);
  });

  it("keeps the largest labels of a split and sums the rest as other", () => {
    const terms = Array.from({ length: MAX_COST_PROCESSES + 3 }, (_, i) => [{ label: `p${i}` }, i + 1] as [{ label: string }, number]);
    const total = terms.reduce((sum, [, s]) => sum + s, 0);
    // p0's two terms sum below zero: it counts as 0, never as a negative
    const byLabel = cpuByLabel([...terms, [{ label: "p0" }, -5]]);
    expect(byLabel.p0).toBe(0);
    expect(Object.values(byLabel).reduce((sum, s) => sum + s, 0)).toBe(total - 1);
    // split with the total as the cost per 1000, so each label keeps its seconds
    const split = splitByProcess(byLabel, total - 1)!;
    expect(Object.keys(split)).toHaveLength(MAX_COST_PROCESSES);
    expect(split[`p${MAX_COST_PROCESSES + 2}`]).toBe(MAX_COST_PROCESSES + 3);
    expect(split.other).toBe(1 + 2 + 3 + 4 - 1);
  });

  it("gives no cost per 1000, and no split of it, when the stable phase completed nothing: unknown, not free", () => {
    const series = [
      { t: 0, cpuSeconds: 0 },
      { t: 10_000, cpuSeconds: 9 },
    ];
    const usage = phaseUsage(series, { "restate-server": 6, "node app/main.ts": 3 });
    const cost = (successful: number, achievedRate: number) =>
      stableCost({ targetPids: () => [1], split: undefined }, {
        usage,
        agg: { startMs: 0, endMs: 10_000 },
        step: { successful, achievedRate },
        generatorCpuShare: 0.1,
      } as unknown as Parameters<typeof stableCost>[1])!;
    const none = cost(0, 0);
    expect(none.coreSecondsPer1000).toBeUndefined();
    expect(none.cpuByProcess).toBeUndefined();
    expect(none).toMatchObject({ targetCpuSeconds: 9, throughputPerCore: 0 });
    const some = cost(900, 90);
    expect(some.coreSecondsPer1000).toBe(10);
    expect(some.cpuByProcess).toEqual({ "restate-server": 6.667, "node app/main.ts": 3.333 });
    expect(some.throughputPerCore).toBe(100);
  });

  it("reads the traced phase's CPU as the stable phase's, and its cost per request against the stable phase's", () => {
    const series = [
      { t: 0, cpuSeconds: 0 },
      { t: 1_000, cpuSeconds: 0.2 },
      { t: 9_000, cpuSeconds: 6.6 },
      { t: 10_000, cpuSeconds: 6.8 },
    ];
    const usage = phaseUsage(series);
    const traced = (successful: number) =>
      ({ usage, agg: { startMs: 1_000, endMs: 9_000 }, step: { successful, achievedRate: successful / 8 } }) as unknown as Parameters<typeof tracedCost>[1];
    // 6.4 core-s over the 8 s the requests ran: 0.8 cores; 800 requests: 8 core-s per 1000, 1.6x the stable phase's 5
    expect(tracedCost({ targetPids: () => [1] }, traced(800), 5)).toEqual({ targetCores: 0.8, coreSecondsPer1000: 8, vsStable: 1.6 });
    expect(tracedCost({ targetPids: () => [1] }, traced(800), undefined)).toEqual({ targetCores: 0.8, coreSecondsPer1000: 8 });
    // nothing completed: the cores it used, no cost per request
    expect(tracedCost({ targetPids: () => [1] }, traced(0), 5)).toEqual({ targetCores: 0.8 });
    // its processes unknown, or not sampled: nothing
    expect(tracedCost({ targetPids: () => [] }, traced(800), 5)).toBeUndefined();
    expect(tracedCost({ targetPids: () => [1] }, { ...traced(800), usage: undefined }, 5)).toBeUndefined();
  });

  it("splits the cost per 1000 in the shares of the phase, and not at all without CPU", () => {
    expect(splitByProcess({ "restate-server": 30, "node app/main.ts": 10 }, 200)).toEqual({ "restate-server": 150, "node app/main.ts": 50 });
    // a launcher that only waited and a tool that ran once: summed as other, or left out when they used nothing
    expect(splitByProcess({ "restate-server": 997, esbuild: 3, "node launcher/main.ts": 0 }, 100)).toEqual({ "restate-server": 99.7, other: 0.3 });
    expect(splitByProcess({ "restate-server": 10, "node launcher/main.ts": 0 }, 100)).toEqual({ "restate-server": 100 });
    expect(splitByProcess({ postgres: 0 }, 200)).toBeUndefined();
    expect(splitByProcess({ postgres: 1 }, 0)).toBeUndefined();
    expect(splitByProcess(undefined, 200)).toBeUndefined();
  });

  it("plans a generator/target core split on a multi-core machine", () => {
    expect(planSplit(1)).toBeUndefined();
    const two = planSplit(2);
    if (two) expect(two).toEqual({ generator: "0", target: "1", generatorCores: 1, targetCores: 1 });
    const eight = planSplit(8);
    if (eight) expect(eight).toMatchObject({ generator: "0-1", target: "2-7" });
  });
});
