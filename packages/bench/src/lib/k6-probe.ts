/**
 * One open-model probe of k6 at one rate: runs a headroom script with its
 * end-of-test summary exported to JSON (no raw output: writing every sample
 * would cost the generator more than the probe measures) and reads k6's own
 * counts of the probe phase from it.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { tasksetPrefix } from "@sfbench/engine";
import { HarnessError, runCommand } from "./children.ts";

export interface K6ProbeSpec {
  k6: string;
  script: string;
  url: string;
  rate: number;
  durationS: number;
  /** extra k6 flags */
  flags: string[];
  /** extra -e variables */
  vars?: Record<string, string>;
  /** environment of the k6 process beyond PATH and HOME (e.g. GOGC) */
  env?: Record<string, string>;
  cpus?: string;
  onStart?: (pid: number) => void;
}

/** The probe phase's counts (the warm-up excluded, see k6/lib/probe.ts). */
export interface K6Counts {
  /** started and finished iterations */
  iterations: number;
  /** rate x duration - iterations */
  dropped: number;
  requests: number;
  /** requests k6 counted as failed (http_req_failed) */
  failed: number;
  /** when the script's summaryTrendStats include it */
  p99Ms: number | null;
  /** dropped_iterations over the whole run, warm-up included */
  droppedWithWarmup: number;
}

interface LegacySummary {
  metrics: Record<string, Record<string, number> | undefined>;
}

export async function probeK6(spec: K6ProbeSpec): Promise<K6Counts> {
  const dir = mkdtempSync(join(tmpdir(), "sfbench-probe-"));
  const summary = join(dir, "summary.json");
  try {
    const vars = { URL: spec.url, RATE: String(spec.rate), DURATION: String(spec.durationS), ...spec.vars };
    const [cmd, ...prefix] = [...tasksetPrefix(spec.cpus), spec.k6];
    const r = await runCommand(
      cmd!,
      [
        ...prefix,
        "run",
        "--quiet",
        "--no-usage-report",
        "--include-system-env-vars=false",
        `--summary-export=${summary}`,
        ...spec.flags,
        ...Object.entries(vars).flatMap(([k, v]) => ["-e", `${k}=${v}`]),
        spec.script,
      ],
      {
        env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? "/tmp", ...spec.env },
        timeoutMs: (spec.durationS + 60) * 1000,
        onStart: spec.onStart,
      },
    );
    if (r.code !== 0)
      throw new HarnessError(`k6 exited with ${r.code} probing ${spec.rate}/s: ${r.stderr.trim().split("\n").slice(-3).join(" ") || "(no output)"}`);
    const m = (JSON.parse(readFileSync(summary, "utf8")) as LegacySummary).metrics;
    const probe = (metric: string) => {
      const sub = m[`${metric}{phase:probe}`];
      if (!sub) throw new HarnessError(`${spec.script}: the summary has no ${metric}{phase:probe} (see k6/lib/probe.ts)`);
      return sub;
    };
    const iterations = probe("iterations").count ?? 0;
    return {
      iterations,
      dropped: Math.max(0, spec.rate * spec.durationS - iterations),
      requests: probe("http_reqs").count ?? 0,
      failed: probe("http_req_failed").passes ?? 0,
      p99Ms: probe("http_req_duration")["p(99)"] ?? null,
      droppedWithWarmup: m.dropped_iterations?.count ?? 0,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
