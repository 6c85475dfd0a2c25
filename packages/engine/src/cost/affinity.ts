/**
 * CPU split between the load generator and the target on one machine: the
 * generator gets the first core(s), the target and its services the rest.
 * Uses taskset (util-linux); on one core, or without taskset, there is no split.
 *
 * The cores split are the ones this process could use when it started
 * (`runCpus()`), read once: a run pins this process to the generator's cores,
 * and the process's own affinity then says one core. The worker and
 * `sfbench run --nodes 1,2,4` do several runs in one process, and each must
 * split the same cores and give them back afterwards.
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { parseCpuList } from "@sfbench/core";
import { descendants } from "./proc.ts";

export { parseCpuList };

export interface CpuSplit {
  generator: string;
  target: string;
  /** cores the generator may use, for the saturation check */
  generatorCores: number;
  targetCores: number;
}

/** A CPU list for taskset: ranges of consecutive CPUs ("0-1", "0,2-3"). */
export function formatCpuList(cpus: readonly number[]): string {
  const s = [...cpus].sort((x, y) => x - y);
  const parts: string[] = [];
  for (let i = 0; i < s.length;) {
    let j = i;
    while (j + 1 < s.length && s[j + 1] === s[j]! + 1) j++;
    parts.push(i === j ? `${s[i]}` : `${s[i]}-${s[j]}`);
    i = j + 1;
  }
  return parts.join(",");
}

/** The CPUs a process may run on now (Linux), or undefined where /proc does not say. */
export function allowedCpus(pid: number | "self" = "self"): number[] | undefined {
  try {
    const m = /Cpus_allowed_list:\s*(\S+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? parseCpuList(m[1]!) : undefined;
  } catch {
    return undefined;
  }
}

const atStart: number[] = allowedCpus() ?? Array.from({ length: availableParallelism() }, (_, i) => i);

/** The CPUs this process could use when it started: what every run splits, and what it gives back. */
export function runCpus(): number[] {
  return [...atStart];
}

let hasTaskset: boolean | undefined;
function tasksetAvailable(): boolean {
  if (hasTaskset === undefined) {
    try {
      execFileSync("taskset", ["-p", String(process.pid)], { stdio: "ignore" });
      hasTaskset = true;
    } catch {
      hasTaskset = false;
    }
  }
  return hasTaskset;
}

/** The split of `cpus` (default: runCpus()), or undefined when there is none to make. */
export function planSplit(cpus: number | readonly number[] = atStart): CpuSplit | undefined {
  const list = typeof cpus === "number" ? Array.from({ length: cpus }, (_, i) => i) : [...cpus];
  if (list.length < 2 || !tasksetAvailable()) return undefined;
  const gen = Math.max(1, Math.floor(list.length / 4));
  return { generator: formatCpuList(list.slice(0, gen)), target: formatCpuList(list.slice(gen)), generatorCores: gen, targetCores: list.length - gen };
}

/**
 * The target's share of this machine for a run (planSplit's target cores),
 * for a provider to start the target on and tell it about; undefined when
 * there is no split to make (one core, no taskset).
 */
export function targetShare(cpus: number | readonly number[] = atStart): { list: string; count: number } | undefined {
  const split = planSplit(cpus);
  return split && { list: split.target, count: split.targetCores };
}

/** Pins every thread of the given process trees to a CPU list; returns how many processes were pinned. */
export function pinTrees(roots: number[], cpus: string): number {
  let n = 0;
  for (const p of descendants(roots)) {
    try {
      execFileSync("taskset", ["-a", "-p", "-c", cpus, String(p.pid)], { stdio: "ignore" });
      n++;
    } catch {
      // the process exited meanwhile
    }
  }
  return n;
}

/** The command prefix that starts a process on a CPU list. */
export const tasksetPrefix = (cpus: string | undefined): string[] => (cpus ? ["taskset", "-c", cpus] : []);
