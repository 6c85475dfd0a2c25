import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { describe, expect, it } from "vitest";
import { pinProcess } from "../src/experiment/run.ts";

const allowed = (pid: number) => /Cpus_allowed_list:\s*(\S+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))![1];

describe("pinning the instrument's own process", () => {
  it.skipIf(availableParallelism() < 2)("pins one process to a CPU list and not its children, and unpins it", () => {
    const parent = spawn("sh", ["-c", "sleep 30 & wait"], { stdio: "ignore" });
    try {
      const before = allowed(parent.pid!);
      let child: number | undefined;
      for (let i = 0; i < 50 && !child; i++) {
        child = Number(readFileSync(`/proc/${parent.pid}/task/${parent.pid}/children`, "utf8").trim().split(" ")[0]) || undefined;
        if (!child) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20);
      }
      expect(pinProcess(parent.pid!, "0")).toBe(true);
      expect(allowed(parent.pid!)).toBe("0");
      expect(allowed(child!)).toBe(before); // the target may be a child of the CLI: it keeps its cores
      expect(pinProcess(parent.pid!, `0-${availableParallelism() - 1}`)).toBe(true);
      expect(allowed(parent.pid!)).toBe(before);
    } finally {
      parent.kill("SIGKILL");
    }
  });
});

describe("the cores a run splits", () => {
  it("parses and writes Linux CPU lists", async () => {
    const { formatCpuList, parseCpuList } = await import("../src/cost/affinity.ts");
    expect(parseCpuList("0-3,8,10-11")).toEqual([0, 1, 2, 3, 8, 10, 11]);
    expect(formatCpuList([3, 0, 1, 2, 8, 10, 11])).toBe("0-3,8,10-11");
    expect(formatCpuList([1])).toBe("1");
    expect(() => parseCpuList("a-b")).toThrow(/not a CPU list/);
  });

  it.skipIf(availableParallelism() < 2)("are the ones this process started with, also while a run has pinned it to the generator's core", async () => {
    const { formatCpuList, planSplit, runCpus } = await import("../src/cost/affinity.ts");
    const before = allowed(process.pid);
    const split = planSplit();
    expect(split).toBeDefined();
    try {
      // what a run does to its own process; the worker then runs the next job in the same process
      expect(pinProcess(process.pid, split!.generator)).toBe(true);
      expect(availableParallelism()).toBe(split!.generatorCores); // the process's own view shrinks...
      expect(planSplit()).toEqual(split); // ...the split does not
      expect(formatCpuList(runCpus())).toBe(before);
    } finally {
      pinProcess(process.pid, formatCpuList(runCpus()));
    }
    expect(allowed(process.pid)).toBe(before);
  });
});
