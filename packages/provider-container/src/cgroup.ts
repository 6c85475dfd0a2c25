/**
 * A container's CPU time from its cgroup's accounting: cpuacct.usage
 * (nanoseconds) on cgroup v1, cpu.stat usage_usec on v2. The cgroup is found
 * from the container's first process (/proc/<pid>/cgroup), so this reads
 * the same group podman set the CPU quota and memory limit on.
 */
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
