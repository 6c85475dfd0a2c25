/** Machine classes from the command line, and the cgroup CPU accounting of a process (this test's own). */
import { availableParallelism } from "node:os";
import { describe, expect, it } from "vitest";
import { cgroupCpuSeconds } from "../src/cgroup.ts";
import { defaultMachineClass, parseMachineClass } from "../src/machine.ts";

describe("machine classes", () => {
  it("defaults to the target's half of the cores", () => {
    expect(defaultMachineClass().cpus).toBe(Math.max(1, Math.floor(availableParallelism() / 2)));
  });

  it("reads --cpus and --memory with units, and names the flag when it cannot", () => {
    expect(parseMachineClass("1.5", "512m")).toMatchObject({ cpus: 1.5, memoryBytes: 512 * 2 ** 20 });
    expect(parseMachineClass(undefined, "2g").memoryBytes).toBe(2 * 2 ** 30);
    expect(parseMachineClass("2", "1048576").memoryBytes).toBe(2 ** 20);
    expect(() => parseMachineClass("-1", undefined)).toThrow(/--cpus: -1 is not a CPU quota/);
    expect(() => parseMachineClass(undefined, "2 tb")).toThrow(/--memory: 2 tb is not a memory limit/);
  });
});

describe("cgroup CPU accounting", () => {
  it("reads this process's cgroup, and nothing for a process that does not exist", () => {
    expect(cgroupCpuSeconds(process.pid)).toBeGreaterThan(0);
    expect(cgroupCpuSeconds(2 ** 22 + 1)).toBeUndefined();
  });
});
