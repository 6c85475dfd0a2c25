/**
 * wrk (Debian package `wrk`): found on PATH, or installed with apt-get when
 * the harness runs as root; otherwise a clear message.
 */
import { execFileSync } from "node:child_process";
import { tasksetPrefix } from "@sfbench/engine";
import { HarnessError, runCommand } from "./children.ts";

function which(cmd: string): string | undefined {
  try {
    return execFileSync("sh", ["-c", `command -v ${cmd}`], { encoding: "utf8" }).trim() || undefined;
  } catch {
    return undefined;
  }
}

/** The path of wrk, installing the Debian package first when it is missing and we may. */
export async function ensureWrk(log: (m: string) => void): Promise<string> {
  const found = which("wrk");
  if (found) return found;
  const isRoot = process.getuid?.() === 0;
  if (!isRoot || !which("apt-get")) {
    throw new HarnessError(
      "wrk is not installed: install the Debian/Ubuntu package (`sudo apt-get install wrk`) or put wrk on PATH, then run the harness again",
    );
  }
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
  const install = () => runCommand("apt-get", ["install", "-y", "-q", "--no-install-recommends", "wrk"], { env, timeoutMs: 600_000 });
  log("wrk is missing: apt-get install wrk");
  let r = await install();
  if (r.code !== 0) {
    log("apt-get install failed; apt-get update, then once more");
    await runCommand("apt-get", ["update", "-q"], { env, timeoutMs: 600_000 });
    r = await install();
  }
  const path = which("wrk");
  if (r.code !== 0 || !path) throw new HarnessError(`could not install wrk with apt-get (exit ${r.code}): ${r.stderr.trim().split("\n").slice(-3).join(" ")}`);
  return path;
}

export interface WrkResult {
  requestsPerS: number;
  requests: number;
  durationS: number;
  non2xx: number;
  socketErrors: number;
}

/** Parses wrk's report. */
export function parseWrk(out: string): WrkResult {
  const rps = /Requests\/sec:\s+([\d.]+)/.exec(out);
  const total = /(\d+) requests in ([\d.]+)(m?s)/.exec(out);
  if (!rps || !total) throw new HarnessError(`unexpected wrk output: ${out.trim().slice(-400)}`);
  const non2xx = /Non-2xx or 3xx responses:\s+(\d+)/.exec(out);
  const sock = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out);
  return {
    requestsPerS: Number(rps[1]),
    requests: Number(total[1]),
    durationS: Number(total[2]) / (total[3] === "ms" ? 1000 : 1),
    non2xx: non2xx ? Number(non2xx[1]) : 0,
    socketErrors: sock ? sock.slice(1).reduce((a, b) => a + Number(b), 0) : 0,
  };
}

export async function runWrk(
  wrk: string,
  url: string,
  opts: { threads: number; connections: number; durationS: number; cpus?: string; onStart?: (pid: number) => void },
): Promise<WrkResult> {
  const [cmd, ...prefix] = [...tasksetPrefix(opts.cpus), wrk];
  const r = await runCommand(cmd!, [...prefix, `-t${opts.threads}`, `-c${opts.connections}`, `-d${opts.durationS}s`, url], {
    timeoutMs: (opts.durationS + 30) * 1000,
    onStart: opts.onStart,
  });
  if (r.code !== 0) throw new HarnessError(`wrk exited with ${r.code}: ${(r.stderr || r.stdout).trim().slice(-400)}`);
  return parseWrk(r.stdout);
}
