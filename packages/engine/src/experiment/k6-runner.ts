/**
 * Runs one k6 script with raw output kept (gzipped CSV, JSON console log)
 * and reports live figures from k6's REST API while it runs.
 */
import { spawn } from "node:child_process";
import { join } from "node:path";
import type { K6Invocation, K6Outcome, LiveFigures } from "@sfbench/core";
import { freePort } from "@sfbench/services";
import { K6_DIR } from "@sfbench/workloads";
import { tasksetPrefix } from "../cost/affinity.ts";

export type { LiveFigures } from "@sfbench/core";

export type { K6Invocation, K6Outcome, LoadGenerator } from "@sfbench/core";

export class K6Error extends Error {}

interface MetricsBody {
  data?: Array<{ id: string; attributes: { sample: Record<string, number> } }>;
}

async function poll(api: string, started: number, last?: LiveFigures): Promise<LiveFigures | undefined> {
  try {
    const res = await fetch(`${api}/v1/metrics`, { signal: AbortSignal.timeout(500) });
    const body = (await res.json()) as MetricsBody;
    const m = new Map((body.data ?? []).map((d) => [d.id, d.attributes.sample]));
    const elapsedS = (performance.now() - started) / 1000;
    const iterations = m.get("iterations")?.count ?? 0;
    return {
      elapsedS,
      requests: m.get("http_reqs")?.count ?? 0,
      iterations,
      achievedRate: last && elapsedS > last.elapsedS ? Math.max(0, (iterations - last.iterations) / (elapsedS - last.elapsedS)) : null,
      dropped: m.get("dropped_iterations")?.count ?? 0,
      failedShare: m.get("http_req_failed")?.rate ?? 0,
      p99Ms: m.get("http_req_duration")?.["p(99)"] ?? null,
    };
  } catch {
    return undefined;
  }
}

/** k6 on this machine's host: the default load generator. */
/** Polls a k6 REST API (`--address`) once a second for the live figures, until the returned function is called. */
export function watchLive(api: string, onTick: ((live: LiveFigures) => void) | undefined): () => void {
  if (!onTick) return () => {};
  const started = performance.now();
  let last: LiveFigures | undefined;
  const timer = setInterval(async () => {
    const live = await poll(api, started, last);
    if (live) {
      last = live;
      onTick(live);
    }
  }, 1000);
  return () => clearInterval(timer);
}

/**
 * Go's garbage collector in the generator: off, under a soft memory limit.
 * A load step is one k6 process of a minute or less, so its heap grows to
 * the limit and Go collects only there. With Go's defaults (GOGC=100) the
 * collector took so much of the generator's one core that k6 offered only
 * 309-336 of 450 checkouts a second to a shop that answers at once; with
 * this it offered all 450 at 2.0 ms of CPU per checkout, holding up to
 * 2.9 GiB (npm run bench:generator, docs/measurements.md).
 */
export const K6_GO_ENV: Readonly<Record<string, string>> = { GOGC: "off", GOMEMLIMIT: "3GiB" };

/** The environment k6 runs in: nothing of the caller's but PATH and HOME (a stray K6_* variable would change the run). */
export function k6ProcessEnv(goEnv: Readonly<Record<string, string>> = K6_GO_ENV): Record<string, string> {
  return { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? "/tmp", K6_CSV_TIME_FORMAT: "unix_milli", ...goEnv };
}

/** goEnv: Go's settings for the k6 process (the generator-cost benchmark compares them); default K6_GO_ENV. */
export async function runK6(inv: K6Invocation, options: { goEnv?: Readonly<Record<string, string>> } = {}): Promise<K6Outcome> {
  const csv = join(inv.outDir, `${inv.name}.csv.gz`);
  const consoleLog = join(inv.outDir, `${inv.name}.console.log`);
  const port = await freePort();
  const args = [
    "run",
    "--quiet",
    "--no-summary",
    "--no-usage-report",
    "--include-system-env-vars=false",
    `--address=127.0.0.1:${port}`,
    `--out=csv=${csv}`,
    "--log-format=json",
    `--console-output=${consoleLog}`,
    ...Object.entries(inv.env).flatMap(([k, v]) => ["-e", `${k}=${v}`]),
    typeof inv.script === "string" ? join(K6_DIR, `${inv.script}.ts`) : inv.script.file,
  ];
  const [cmd, ...prefix] = [...tasksetPrefix(inv.cpus), inv.k6];
  const started = performance.now();
  const child = spawn(cmd!, [...prefix, ...args], {
    cwd: K6_DIR,
    // typed as ProcessEnv: Next.js (apps/web type-checks this file) declares NODE_ENV as a required key
    env: k6ProcessEnv(options.goEnv) as unknown as NodeJS.ProcessEnv,
    stdio: ["ignore", "ignore", "pipe"],
  });
  if (child.pid) inv.onStart?.(child.pid);
  const abort = () => child.kill("SIGKILL");
  if (inv.signal?.aborted) abort();
  else inv.signal?.addEventListener("abort", abort, { once: true });
  let stderr = "";
  child.stderr.on("data", (d: Buffer) => {
    stderr = (stderr + d.toString()).slice(-4000);
  });
  const stopLive = watchLive(`http://127.0.0.1:${port}`, inv.onTick);
  const exitCode = await new Promise<number | null>((resolve, reject) => {
    child.on("error", (e) => reject(new K6Error(`could not start k6 (${inv.k6}): ${e.message}`)));
    child.on("close", (code) => resolve(code));
  }).finally(() => {
    stopLive();
    inv.signal?.removeEventListener("abort", abort);
  });
  const stderrTail = stderr.trim().split("\n").slice(-5).join("\n");
  return { exitCode, csv, console: consoleLog, stderrTail, wallS: (performance.now() - started) / 1000 };
}
