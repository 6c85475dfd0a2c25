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
