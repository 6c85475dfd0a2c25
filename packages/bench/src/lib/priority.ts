/**
 * --priority: the harness runs again in a session of its own whose
 * scheduling group has nice -10, so that other processes on a shared machine
 * take less of the generator's and the server's cores. Linux schedules each
 * session as a group (autogroup): a process's own nice value only counts
 * within its session, the group's (/proc/<pid>/autogroup) counts against the
 * other sessions. Everything the harness starts inherits the session: k6,
 * wrk, the servers, `sfbench run` and the target it starts; services started
 * before (PostgreSQL, Kafka) do not. Lowering a nice value needs root.
 *
 * Not the real-time class: k6, wrk or the servers in SCHED_FIFO starve the
 * kernel's softirq threads of their cores, and loopback traffic stalls (wrk
 * halved, requests to the servers timing out).
 */
import { spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";

export const PRIORITY_NICE = -10;
const MARK = "SFBENCH_HARNESS_PRIORITY";

/** Inside the prioritized session: its description; else undefined. */
export function prioritized(): string | undefined {
  if (process.env[MARK] !== "1") return undefined;
  let nice = "?";
  try {
    nice = /nice (-?\d+)/.exec(readFileSync("/proc/self/autogroup", "utf8"))?.[1] ?? "?";
  } catch {
    // no autogroup file: reported as "?"
  }
  return `own session (autogroup) at nice ${nice} (--priority)`;
}

export const describePriority = () => prioritized() ?? "normal (the caller's session and nice)";

/** Runs this very command again in a new session at nice -10; resolves to its exit code. */
export async function rerunPrioritized(log: (m: string) => void): Promise<number> {
  const child = spawn(process.execPath, [...process.execArgv, ...process.argv.slice(1)], {
    detached: true, // setsid: a new session, hence a new autogroup
    stdio: "inherit",
    env: { ...process.env, [MARK]: "1" },
  });
  try {
    writeFileSync(`/proc/${child.pid}/autogroup`, String(PRIORITY_NICE));
  } catch (e) {
    child.kill("SIGKILL");
    log(`--priority: cannot set the session's nice to ${PRIORITY_NICE} (${(e as Error).message}): it needs root and a kernel with autogroup`);
    return 2;
  }
  // the new session does not get the terminal's Ctrl-C: pass signals on
  for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => child.kill(signal));
  return new Promise((resolve) => child.on("close", (code, signal) => resolve(code ?? (signal ? 130 : 1))));
}
