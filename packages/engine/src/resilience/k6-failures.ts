/**
 * The failed requests of a phase from its raw k6 output, for the fault
 * analysis: every measured request (tag op) that was neither 200 nor 409,
 * with its end time on the per-second series' clock.
 */
import { streamK6Csv } from "../analysis/k6-csv.ts";
import type { FailedRequest } from "./fault.ts";

/** Where the per-second series (aggregateK6's perSecond) has t = 0: the whole second of its first request start. */
export const seriesOriginMs = (aggregateStartMs: number) => Math.floor(aggregateStartMs / 1000) * 1000;

/** Converts an epoch-ms instant (e.g. KilledNode.at) to seconds on the series' clock. */
export const onSeriesClock = (epochMs: number, originMs: number) => (epochMs - originMs) / 1000;

export async function failuresFromK6Csv(file: string, opts: { op: string; originMs: number }): Promise<FailedRequest[]> {
  const out: FailedRequest[] = [];
  await streamK6Csv(
    file,
    (s) => {
      if (s.tags.op !== opts.op || s.status === 200 || s.status === 409) return;
      out.push({ atS: onSeriesClock(s.timeMs, opts.originMs), status: s.status ?? 0 });
    },
    { metrics: ["http_req_duration"] },
  );
  return out.sort((a, b) => a.atS - b.atS);
}
