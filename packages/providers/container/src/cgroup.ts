/**
 * A container's CPU time from its cgroup's accounting: cpuacct.usage
 * (nanoseconds) on cgroup v1, cpu.stat usage_usec on v2. The cgroup is found
 * from the container's first process (/proc/<pid>/cgroup), so this reads
 * the same group podman set the CPU quota and memory limit on. Also the CPU
 * of a host process tree, for the run's own PostgreSQL beside them.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";

const CGROUP_ROOT = "/sys/fs/cgroup";
const NS_PER_S = 1e9;
const US_PER_S = 1e6;

/** CPU seconds used so far by the cgroup of `pid`, undefined when it cannot be read (the process is gone). */
export function cgroupCpuSeconds(pid: number): number | undefined {
  let lines: string[];
  try {
    lines = readFileSync(`/proc/${pid}/cgroup`, "utf8").trim().split("\n");
  } catch {
    return undefined;
  }
  // v1: "2:cpuacct:/path" or "3:cpu,cpuacct:/path"
  for (const line of lines) {
    const [, controllers, path] = line.split(":", 3) as [string, string, string];
    if (!controllers.split(",").includes("cpuacct")) continue;
    for (const mount of ["cpuacct", "cpu,cpuacct", "cpuacct,cpu"]) {
      const file = join(CGROUP_ROOT, mount, path, "cpuacct.usage");
      if (existsSync(file)) return Number(readFileSync(file, "utf8").trim()) / NS_PER_S;
    }
  }
  // v2: "0::/path"
  const unified = lines.find((l) => l.startsWith("0::"));
  if (unified) {
    const file = join(CGROUP_ROOT, unified.slice(3), "cpu.stat");
    if (existsSync(file)) {
      const usec = /^usage_usec (\d+)$/m.exec(readFileSync(file, "utf8"))?.[1];
      if (usec !== undefined) return Number(usec) / US_PER_S;
    }
  }
  return undefined;
}

let ticks: number | undefined;
/** USER_HZ, the unit of /proc/<pid>/stat's CPU times. */
function clockTicks(): number {
  ticks ??= Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim());
  return ticks;
}

/** utime + stime + cutime + cstime of one process (its own CPU and that of the children it reaped), seconds; undefined when it is gone. */
function ownAndReapedSeconds(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // comm may hold spaces and parentheses: fields start after the last ')', at field 3
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14])) / clockTicks();
  } catch {
    return undefined;
  }
}

/**
 * CPU seconds of a host process tree so far: the run's own PostgreSQL, which
 * runs beside the containers, not in a cgroup of its own. The postmaster
 * reaps its backends, so its cutime holds every ended one; the live ones are
 * read one by one. undefined when the root is gone.
 */
export function treeCpuSeconds(root: number, members: number[]): number | undefined {
  const own = ownAndReapedSeconds(root);
  if (own === undefined) return undefined;
  return members.reduce((sum, pid) => sum + (ownAndReapedSeconds(pid) ?? 0), own);
}
