/**
 * The machine the figures come from, the CPU split between load generator and
 * server, and how much CPU everything else on the machine took meanwhile
 * (other processes on a shared machine lower every figure here).
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { availableParallelism, cpus, release, totalmem } from "node:os";
import { parseCpuList } from "@sfbench/core";
import { planSplit, type CpuSplit } from "@sfbench/engine";
import { clockTicks } from "@sfbench/engine";
import { ProcessSampler } from "@sfbench/engine";

export interface Machine {
  cpuModel: string;
  cores: number;
  memoryGiB: number;
  kernel: string;
  node: string;
  k6?: string;
  wrk?: string;
  /** load average (1 min) when the harness started */
  loadAverage1m: number;
}

const versionOf = (cmd: string, args: string[]): string | undefined => {
  try {
    return execFileSync(cmd, args, { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] })
      .split("\n")[0]!
      .trim();
  } catch (e) {
    // wrk -v prints its version and exits 1
    const out = (e as { stdout?: string }).stdout;
    return out ? out.split("\n")[0]!.trim() : undefined;
  }
};

export function machine(tools: { k6?: string; wrk?: string } = {}): Machine {
  return {
    cpuModel: cpus()[0]?.model.trim() ?? "unknown",
    cores: availableParallelism(),
    memoryGiB: Math.round((totalmem() / 2 ** 30) * 10) / 10,
    kernel: release(),
    node: process.version,
    k6: tools.k6 ? versionOf(tools.k6, ["version"]) : undefined,
    wrk: tools.wrk ? versionOf(tools.wrk, ["-v"]) : undefined,
    loadAverage1m: Number(readFileSync("/proc/loadavg", "utf8").split(" ")[0]),
  };
}

/** Generator on the first core(s), server on the rest; undefined on one core or without taskset. */
export function split(): CpuSplit | undefined {
  return planSplit();
}

export const describeSplit = (s: CpuSplit | undefined): string =>
  s
    ? `load generator on CPU ${s.generator}, server on CPU ${s.target} (taskset)`
    : "no CPU split (one core or no taskset): generator and server share the machine";

/** Busy seconds (user+nice+system+irq+softirq+steal) of all CPUs ("all") and of each CPU by number. */
function busySeconds(): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of readFileSync("/proc/stat", "utf8").split("\n")) {
    const m = /^cpu(\d*)\s+(.*)$/.exec(line);
    if (!m) continue;
    const [user, nice, system, _idle, _iowait, irq, softirq, steal] = m[2]!.trim().split(/\s+/).map(Number) as number[];
    out.set(m[1] === "" ? "all" : m[1]!, (user! + nice! + system! + irq! + softirq! + steal!) / clockTicks());
  }
  return out;
}

export interface CpuUse {
  wallS: number;
  /** cores used on average by each group, and by the harness process itself */
  cores: Record<string, number>;
  /** cores used on average by every other process on the machine */
  otherCores: number;
  /** for each group pinned to a CPU list: cores the other processes used on that list */
  otherOn: Record<string, number>;
}

/** Samples the CPU of named process groups and of the whole machine over one interval. */
export class CpuWatch {
  private readonly sampler: ProcessSampler;
  private busy0 = new Map<string, number>();
  private self0 = process.cpuUsage();

  /**
   * groups: process trees (a root and its descendants); pinned: the CPU list
   * a group is pinned to, so that what else ran on those CPUs can be told
   */
  constructor(
    groups: Record<string, () => number[]>,
    private readonly pinned: Record<string, string | undefined> = {},
  ) {
    this.sampler = new ProcessSampler(groups, 200);
  }

  start(): this {
    this.busy0 = busySeconds();
    this.self0 = process.cpuUsage();
    this.sampler.start();
    return this;
  }

  stop(): CpuUse {
    const r = this.sampler.stop();
    const busy1 = busySeconds();
    const delta = (key: string) => (busy1.get(key) ?? 0) - (this.busy0.get(key) ?? 0);
    const self = process.cpuUsage(this.self0);
    const selfS = (self.user + self.system) / 1e6;
    const cores: Record<string, number> = { harness: selfS / r.wallSeconds };
    let own = selfS;
    for (const [g, u] of Object.entries(r.groups)) {
      cores[g] = u.cpuSeconds / r.wallSeconds;
      own += u.cpuSeconds;
    }
    const otherOn: Record<string, number> = {};
    for (const [g, list] of Object.entries(this.pinned)) {
      if (!list || !r.groups[g]) continue;
      const busy = parseCpuList(list).reduce((a, c) => a + delta(String(c)), 0);
      otherOn[g] = Math.max(0, (busy - r.groups[g].cpuSeconds) / r.wallSeconds);
    }
    return { wallS: r.wallSeconds, cores, otherCores: Math.max(0, (delta("all") - own) / r.wallSeconds), otherOn };
  }
}
