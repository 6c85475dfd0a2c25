/**
 * How busy the machine was during a run, from /proc (Linux): the load
 * average, the hypervisor's steal, and the CPU time of every process outside
 * the run. The run's own CPU is its process trees' (this process with its k6
 * children, the target's processes); a process that ended during the run
 * left its time in its parent's cutime/cstime, so each tree's total is
 * compared at the start and at the end. Everything else the kernel counted
 * as used is someone else's: another benchmark, a build, a test suite.
 */
import { readFileSync } from "node:fs";
import { BUSY_OUTSIDE_CORES, BUSY_STEAL_SHARE, busyReasons, type Noise } from "@sfbench/core";
import { clockTicks, descendants, processTable } from "./proc.ts";

interface CpuTimes {
  /** every field of the aggregate "cpu" line, seconds */
  total: number;
  /** user, nice, system, irq, softirq (guest time is already in user) */
  used: number;
  steal: number;
}

/** The aggregate line of /proc/stat: user nice system idle iowait irq softirq steal guest guest_nice (clock ticks). */
export function parseProcStat(text: string): CpuTimes & { cpus: number } {
  const lines = text.split("\n");
  const f = lines
    .find((l) => l.startsWith("cpu "))!
    .trim()
    .split(/\s+/)
    .slice(1)
    .map(Number);
  const [user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0] = f;
  const hz = clockTicks();
  return {
    total: (user + nice + system + idle + iowait + irq + softirq + steal) / hz,
    used: (user + nice + system + irq + softirq) / hz,
    steal: steal / hz,
    cpus: lines.filter((l) => /^cpu\d+ /.test(l)).length || 1,
  };
}

export function parseLoadAverage(text: string): [number, number, number] {
  const [a = 0, b = 0, c = 0] = text.trim().split(/\s+/).map(Number);
  return [a, b, c];
}

/** CPU seconds of the trees under these roots, each process once (live ones and what they reaped). */
export function treeCpuSeconds(roots: number[]): number {
  return descendants(roots, processTable()).reduce((a, s) => a + s.cpuSeconds + s.childCpuSeconds, 0);
}

export interface NoiseMark {
  at: number;
  cpu: CpuTimes & { cpus: number };
  load: [number, number, number];
  own: number;
}

/** The figures now; `ownRoots`: the run's process roots (this process, the target's). */
export function noiseMark(ownRoots: number[]): NoiseMark {
  return {
    at: performance.now(),
    cpu: parseProcStat(readFileSync("/proc/stat", "utf8")),
    load: parseLoadAverage(readFileSync("/proc/loadavg", "utf8")),
    own: treeCpuSeconds(ownRoots),
  };
}

/** The noise between two marks, judged against the busy thresholds (core trial.ts). */
export function noiseBetween(start: NoiseMark, end: NoiseMark): Noise {
  const wallS = Math.max((end.at - start.at) / 1000, Number.EPSILON);
  const used = Math.max(0, end.cpu.used - start.cpu.used);
  const total = Math.max(0, end.cpu.total - start.cpu.total);
  const own = Math.max(0, end.own - start.own);
  const outside = Math.max(0, used - own);
  const figures = { outsideCores: outside / wallS, stealShare: total > 0 ? Math.min(1, (end.cpu.steal - start.cpu.steal) / total) : 0 };
  const busyBecause = busyReasons(figures);
  return {
    loadAverage: { start: start.load, end: end.load },
    wallS,
    cpus: end.cpu.cpus,
    runCores: own / wallS,
    ...figures,
    thresholds: { outsideCores: BUSY_OUTSIDE_CORES, stealShare: BUSY_STEAL_SHARE },
    busy: busyBecause.length > 0,
    busyBecause,
  };
}
