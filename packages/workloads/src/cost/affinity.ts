/**
 * CPU split between the load generator and the target on one machine: the
 * generator gets the first core(s), the target and its services the rest.
 * Uses taskset (util-linux); on one core, or without taskset, there is no split.
 */
import { execFileSync } from "node:child_process";
import { availableParallelism } from "node:os";
import { descendants } from "./proc.ts";

export interface CpuSplit {
  generator: string;
  target: string;
  /** cores the generator may use, for the saturation check */
  generatorCores: number;
  targetCores: number;
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

/** The split for this machine, or undefined when there is none to make. */
export function planSplit(cores = availableParallelism()): CpuSplit | undefined {
  if (cores < 2 || !tasksetAvailable()) return undefined;
  const gen = Math.max(1, Math.floor(cores / 4));
  const range = (a: number, b: number) => (a === b ? `${a}` : `${a}-${b}`);
  return { generator: range(0, gen - 1), target: range(gen, cores - 1), generatorCores: gen, targetCores: cores - gen };
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
