/** The cost's CPU from a provider's own accounting (a container's cgroups) when it has one, else from the process trees. */
import { spawn } from "node:child_process";
import { describe, expect, it } from "vitest";
import { ProcessSampler } from "../src/cost/sampler.ts";
import { localEnvironment } from "../src/experiment/environment.ts";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("the cost's CPU source", () => {
  it("takes a group's CPU from its counter, read at the first and the last sample, and keeps the trees for its memory", async () => {
    const idle = spawn("sleep", ["30"], { stdio: "ignore" });
    try {
      const readings = [100, 103.5];
      let reads = 0;
      // one sample a minute: only the first and the last run, however slow the machine
      const sampler = new ProcessSampler({ target: () => [idle.pid!], other: () => [idle.pid!] }, 60_000, {
        target: () => readings[Math.min(reads++, readings.length - 1)]!,
      });
      sampler.start();
      await sleep(50);
      const result = sampler.stop();
      expect(reads).toBe(2);
      expect(result.groups.target).toMatchObject({ cpuSeconds: 3.5, cpuFrom: "counter", processes: 1 });
      expect(result.groups.target!.peakRssBytes).toBeGreaterThan(0);
      // the same tree without a counter: an idle sleep used next to nothing
      expect(result.groups.other!.cpuFrom).toBe("process-tree");
      expect(result.groups.other!.cpuSeconds).toBeLessThan(0.05);
    } finally {
      idle.kill();
    }
  });

  it("records the source in the result's environment, and none for a run that counted no target processes", () => {
    expect(localEnvironment({ k6: "k6", repoRoot: ".", costSource: "cgroup" }).cost).toEqual({ source: "cgroup" });
    expect(localEnvironment({ k6: "k6", repoRoot: ".", costSource: "process-tree" }).cost).toEqual({ source: "process-tree" });
    expect(localEnvironment({ k6: "k6", repoRoot: "." }).cost).toBeUndefined();
  });
});
