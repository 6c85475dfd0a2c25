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
  /** field 2: the command name (15 characters at most), without its parentheses */
  comm: string;
  ppid: number;
  /** field 3: R running, S sleeping, T stopped, ... */
  state: string;
  /** utime + stime, seconds */
  cpuSeconds: number;
  /**
   * cutime + cstime, seconds: the CPU time of the children this process has
   * reaped (each with its own reaped children). A child's time moves here when
   * its parent waits for it, so a tree's total survives its short-lived members.
   */
  childCpuSeconds: number;
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
  const hz = clockTicks();
  return {
    pid,
    comm: text.slice(text.indexOf("(") + 1, text.lastIndexOf(")")),
    ppid: f(4),
    state: rest[0]!,
    cpuSeconds: (f(14) + f(15)) / hz,
    childCpuSeconds: (f(16) + f(17)) / hz,
    rssBytes: f(24) * PAGE,
    start: f(22),
  };
}

/** The pids /proc lists now (processes, not threads). */
export function livePids(): number[] {
  const out: number[] = [];
  for (const name of readdirSync("/proc")) {
    const c = name.charCodeAt(0);
    if (c >= 48 && c <= 57) out.push(Number(name));
  }
  return out;
}

/** Every live pid and its parent. */
export function processTable(): Map<number, ProcStat> {
  const table = new Map<number, ProcStat>();
  for (const pid of livePids()) {
    const s = readStat(pid);
    if (s) table.set(s.pid, s);
  }
  return table;
}

/** Parent -> children, from anything that has a pid and a ppid. */
export function childrenOf(procs: Iterable<{ pid: number; ppid: number }>): Map<number, number[]> {
  const children = new Map<number, number[]>();
  for (const s of procs) {
    const list = children.get(s.ppid);
    if (list) list.push(s.pid);
    else children.set(s.ppid, [s.pid]);
  }
  return children;
}

/** The pids of the roots (those that exist) and of all their descendants, roots first. */
export function treePids(roots: readonly number[], exists: (pid: number) => boolean, children: Map<number, number[]>): number[] {
  const out: number[] = [];
  const stack = roots.filter(exists);
  const seen = new Set<number>();
  while (stack.length) {
    const pid = stack.pop()!;
    if (seen.has(pid)) continue;
    seen.add(pid);
    out.push(pid);
    for (const c of children.get(pid) ?? []) stack.push(c);
  }
  return out;
}

/** The roots and all their live descendants. */
export function descendants(roots: number[], table = processTable()): ProcStat[] {
  return treePids(roots, (pid) => table.has(pid), childrenOf(table.values())).map((pid) => table.get(pid)!);
}

/** Runtimes whose own name says little: their label adds what they run. */
const RUNTIMES = /^(node|java|python[0-9.]*|ruby|dotnet|bun|deno)$/;
/** java options whose value is the next argument */
const JAVA_VALUE_OPTIONS = new Set(["-cp", "-classpath", "--class-path", "-p", "--module-path", "--add-modules", "--add-opens", "--add-exports"]);
/** a label is shown on the board: bounded, printable, from the process's own name */
const MAX_LABEL = 60;

/**
 * What a process is, for a cost split by process: its command name (comm),
 * and for a runtime (node, java, python) what it runs: the script's last two
 * path parts, a jar's name or a Java main class's last part. "restate-server",
 * "node app/main.ts", "java kafka.Kafka" → "java Kafka", "postgres".
 * `comm`: the command name where the caller has just read the stat.
 * Undefined when the process is gone.
 */
export function processLabel(pid: number, comm = readStat(pid)?.comm): string | undefined {
  if (comm === undefined) return undefined;
  let argv: string[];
  try {
    argv = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").filter(Boolean);
  } catch {
    return undefined;
  }
  return labelOf(comm, argv);
}

/** processLabel's rule, from a command name and an argument vector. */
export function labelOf(comm: string, argv: readonly string[]): string {
  const clean = (s: string) => s.replace(/[^\x20-\x7e]/g, "?").slice(0, MAX_LABEL);
  if (!RUNTIMES.test(comm)) return clean(comm || "?");
  const args = argv.slice(1);
  let what: string | undefined;
  if (comm === "java") {
    const jar = args.indexOf("-jar");
    if (jar >= 0 && args[jar + 1]) what = args[jar + 1]!.split("/").at(-1);
    else {
      for (let i = 0; i < args.length && !what; i++) {
        const a = args[i]!;
        if (JAVA_VALUE_OPTIONS.has(a)) i++;
        else if (!a.startsWith("-")) what = a.split(".").at(-1);
      }
    }
  } else {
    const script = args.find((a) => /\.(m?[jt]s|c[jt]s|py|rb|dll)$/.test(a));
    what = script?.split("/").slice(-2).join("/");
  }
  return clean(what ? `${comm} ${what}` : comm);
}
