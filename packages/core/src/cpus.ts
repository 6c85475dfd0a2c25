/** Parses a Linux CPU list ("0-3,8,10-11"), as taskset and /proc/<pid>/status write it and a run's cpuSplit keeps it. */
export function parseCpuList(list: string): number[] {
  const out: number[] = [];
  for (const part of list.trim().split(",")) {
    if (!part) continue;
    const [a, b] = part.split("-").map(Number);
    if (!Number.isInteger(a) || (b !== undefined && !Number.isInteger(b))) throw new Error(`not a CPU list: ${JSON.stringify(list)}`);
    for (let c = a!; c <= (b ?? a!); c++) out.push(c);
  }
  return out;
}
