/**
 * The open-model probe both headroom scripts share: a warm-up at the probe's
 * rate (WARMUP seconds, default 1, not counted), then the probe itself
 * (DURATION seconds at RATE iterations/s). k6 drops a burst of iterations in
 * its first few hundred milliseconds (connections opening, heap growing);
 * at 6000/s that burst alone was 1-4% of a 2-6 s probe, so counting it would
 * judge k6's start-up rather than its steady rate.
 *
 * The probe's own counts come out of the end-of-test summary as submetrics
 * tagged phase:probe (k6 only exports a submetric that a threshold names;
 * the thresholds here always pass). dropped_iterations samples carry no
 * scenario tags, so the harness derives the probe's dropped iterations as
 * RATE x DURATION - iterations{phase:probe}: every scheduled iteration either
 * starts, and then finishes within gracefulStop, or is dropped.
 */
import type { Options, Scenario } from "k6/options";

export interface ProbeVus {
  preAllocatedVUs: number;
  maxVUs: number;
}

export function probeOptions(vus: ProbeVus, probeGracefulStop?: string): Pick<Options, "scenarios" | "thresholds"> {
  const rate = Number(__ENV.RATE);
  const warmup = Number(__ENV.WARMUP ?? 1);
  const base = { executor: "constant-arrival-rate" as const, rate, timeUnit: "1s", ...vus };
  const scenarios: Record<string, Scenario> = {
    probe: {
      ...base,
      duration: `${__ENV.DURATION}s`,
      startTime: `${warmup}s`,
      tags: { phase: "probe" },
      ...(probeGracefulStop ? { gracefulStop: probeGracefulStop } : {}),
    },
  };
  // gracefulStop 0: the probe's VUs are the warm-up's, not a second pool
  if (warmup > 0) scenarios.warmup = { ...base, duration: `${warmup}s`, gracefulStop: "0s", tags: { phase: "warmup" } };
  return {
    scenarios,
    thresholds: {
      "iterations{phase:probe}": ["count>=0"],
      "http_reqs{phase:probe}": ["count>=0"],
      "http_req_failed{phase:probe}": ["rate>=0"],
      "http_req_duration{phase:probe}": ["max>=0"],
    },
  };
}
