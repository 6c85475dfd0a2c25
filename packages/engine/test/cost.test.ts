import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { descendants, readStat } from "../src/cost/proc.ts";
import { cpuBetween, ProcessSampler } from "../src/cost/sampler.ts";
import { planSplit } from "../src/cost/affinity.ts";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

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

  it("plans a generator/target core split on a multi-core machine", () => {
    expect(planSplit(1)).toBeUndefined();
    const two = planSplit(2);
    if (two) expect(two).toEqual({ generator: "0", target: "1", generatorCores: 1, targetCores: 1 });
    const eight = planSplit(8);
    if (eight) expect(eight).toMatchObject({ generator: "0-1", target: "2-7" });
  });
});
