/**
 * Reading /proc: CPU time and resident memory of process trees (Linux).
 */
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";

let ticks: number | undefined;
/** Clock ticks per second (USER_HZ), for utime/stime in /proc/<pid>/stat. */
export function clockTicks(): number {
  if (ticks === undefined) {
    try {
      ticks = Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;
    } catch {
      ticks = 100;
    }
  }
  return ticks;
}

const PAGE = 4096;

export interface ProcStat {
  pid: number;
  ppid: number;
  /** utime + stime, seconds */
  cpuSeconds: number;
  rssBytes: number;
  /** starttime, clock ticks since boot: tells a reused pid apart */
  start: number;
}

/** Parses /proc/<pid>/stat; undefined when the process is gone. */
export function readStat(pid: number): ProcStat | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return undefined;
  }
  // comm may contain spaces and parentheses: fields start after the last ')'
  const rest = text.slice(text.lastIndexOf(")") + 2).split(" ");
  // rest[0] is field 3 (state); field n is rest[n - 3]
  const f = (n: number) => Number(rest[n - 3]);
  return { pid, ppid: f(4), cpuSeconds: (f(14) + f(15)) / clockTicks(), rssBytes: f(24) * PAGE, start: f(22) };
}

/** Every live pid and its parent. */
export function processTable(): Map<number, ProcStat> {
  const table = new Map<number, ProcStat>();
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    const s = readStat(Number(name));
    if (s) table.set(s.pid, s);
  }
  return table;
}

/** The roots and all their live descendants. */
export function descendants(roots: number[], table = processTable()): ProcStat[] {
  const children = new Map<number, number[]>();
  for (const s of table.values()) children.set(s.ppid, [...(children.get(s.ppid) ?? []), s.pid]);
  const out: ProcStat[] = [];
  const stack = roots.filter((r) => table.has(r));
  const seen = new Set<number>();
  while (stack.length) {
    const pid = stack.pop()!;
    if (seen.has(pid)) continue;
    seen.add(pid);
    out.push(table.get(pid)!);
    stack.push(...(children.get(pid) ?? []));
  }
  return out;
}
