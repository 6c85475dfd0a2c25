/**
 * A machine class: the CPU quota and memory limit every node container of a
 * run gets. The run's class is chosen by the caller (the CLI's --cpus and
 * --memory, the worker from the run's environment); `defaultMachineClass`
 * gives a run on this machine the target's side of the core split the
 * experiment engine makes (the load generator keeps the other cores).
 */
import { availableParallelism, totalmem } from "node:os";
import { z } from "zod";

export const MachineClass = z.strictObject({
  /** a label for the result and the logs */
  name: z.string().min(1),
  /** CPU quota in cores (podman --cpus; fractions allowed) */
  cpus: z.number().positive(),
  /** memory limit in bytes (podman --memory; swap is not allowed beyond it) */
  memoryBytes: z.number().int().positive(),
});
export type MachineClass = z.infer<typeof MachineClass>;

/**
 * The share of the machine's memory a node container may use by default: the
 * load generator, the target's PostgreSQL and the shared services need the rest.
 */
const DEFAULT_MEMORY_SHARE = 0.25;

/** Half the cores (at least one), as the engine's core split gives the target; a quarter of the memory. */
export function defaultMachineClass(): MachineClass {
  const cpus = Math.max(1, Math.floor(availableParallelism() / 2));
  const memoryBytes = Math.floor(totalmem() * DEFAULT_MEMORY_SHARE);
  return { name: `local-${cpus}cpu-${Math.round(memoryBytes / 2 ** 30)}gib`, cpus, memoryBytes };
}

/** "2" or "1.5" cores and "4g", "512m" or bytes, from the command line, as a class. */
export function parseMachineClass(cpus: string | undefined, memory: string | undefined, base = defaultMachineClass()): MachineClass {
  const c = cpus === undefined ? base.cpus : Number(cpus);
  if (!Number.isFinite(c) || c <= 0) throw new Error(`--cpus: ${cpus} is not a CPU quota (a positive number of cores, e.g. 1 or 1.5)`);
  let m = base.memoryBytes;
  if (memory !== undefined) {
    const match = /^(\d+(?:\.\d+)?)([kmg]?)$/i.exec(memory.trim());
    if (!match) throw new Error(`--memory: ${memory} is not a memory limit (bytes, or a number with k, m or g, e.g. 2g)`);
    const unit = { "": 1, k: 2 ** 10, m: 2 ** 20, g: 2 ** 30 }[match[2]!.toLowerCase() as "" | "k" | "m" | "g"];
    m = Math.floor(Number(match[1]) * unit);
  }
  const named = cpus === undefined && memory === undefined ? base.name : `custom-${c}cpu-${(m / 2 ** 30).toFixed(1)}gib`;
  return MachineClass.parse({ name: named, cpus: c, memoryBytes: m });
}
