/**
 * The class of machine a run measured on, for grouping trials: knees from a
 * 2-core VM and a 64-core server are not one population. Cores, CPU model and
 * memory rounded to GiB (what the OS reports moves by a few MiB between
 * boots of one machine type; rounding keeps them one class).
 */
import type { Environment } from "@sfbench/core";

const GIB = 1024 ** 3;

export function machineClass(env: Pick<Environment, "cores" | "cpuModel" | "memoryBytes">): string {
  return `${env.cores} ${env.cores === 1 ? "core" : "cores"}, ${env.cpuModel.trim() || "unknown CPU"}, ${Math.round(env.memoryBytes / GIB)} GiB`;
}
