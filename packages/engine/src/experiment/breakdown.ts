/**
 * The latency breakdown of the traced phase (the stable phase's rate, requests
 * sampled): the spans the target wrote during it are shipped through Kafka
 * once it is over (so that shipping does not compete with the measurement),
 * then grouped per measured request.
 */
import type { Cell, StableLoad } from "@sfbench/core";
import { buildBreakdown, type ClientLatency, type MeasuredRequest } from "../trace/breakdown.ts";
import type { TraceWindow } from "../trace/session.ts";
import { progress, type CellPlan, type LoadOutcome, type RunContext } from "./phase.ts";

/** Marks where the traced phase's spans start; undefined (and a progress note) when tracing is off or Kafka fails. */
export async function openTraceWindow(ctx: RunContext, cell: CellPlan): Promise<TraceWindow | undefined> {
  if (!ctx.trace) return undefined;
  try {
    return await ctx.trace.window();
  } catch (e) {
    progress(ctx, cell, "trace", `no breakdown for this cell: could not start shipping spans: ${(e as Error).message}`, { note: true });
    return undefined;
  }
}

/**
 * The traced phase's breakdown: the measured requests are the checkouts of
 * the audit records (answered ones, as in the client latency stats), grouped
 * by cart size; analytics sends only freq-items requests in its load steps,
 * so every traced request is measured there. Node-postgres's spans carry no
 * query shape, so analytics gets an overall breakdown only.
 */
export async function phaseBreakdown(
  ctx: RunContext,
  cell: CellPlan,
  traceWindow: TraceWindow,
  stable: LoadOutcome,
  stats: StableLoad,
): Promise<Cell["breakdown"]> {
  const note = (detail: string) => progress(ctx, cell, "trace", detail, { note: true });
  let measured: Map<string, MeasuredRequest> | undefined;
  if (cell.workload !== "analytics") {
    measured = new Map();
    for (const c of stable.checkouts) if (c.traceId && (c.status === 200 || c.status === 409)) measured.set(c.traceId, { cartSize: String(c.items.length) });
  }
  const mean = (by: StableLoad["byCartSize"]) => (by ? Object.fromEntries(Object.entries(by).map(([k, o]) => [k, o.latency.mean])) : undefined);
  const client: ClientLatency = { overall: stats.latency.mean, byCartSize: mean(stats.byCartSize), byShape: mean(stats.byShape) };
  try {
    note("collecting the traced phase's spans");
    const keep = measured;
    const { spans, shipped } = await traceWindow.finish(keep ? (span) => keep.has(span.traceId) : undefined);
    const breakdown = buildBreakdown({ spans, client, measured, requests: stats.latency.count });
    if (!breakdown) {
      note(`no breakdown for this cell: none of the measured requests has a gateway span (${shipped.spans} span lines shipped of ${shipped.lines} log lines)`);
      return undefined;
    }
    for (const n of breakdown.notes ?? []) note(`breakdown: ${n}`);
    const c = breakdown.coverage;
    if (c)
      note(
        `breakdown covers ${c.complete} of ${c.requests} requests (${(c.share * 100).toFixed(1)}%), parts ${(c.deviation * 100).toFixed(1)}% off the measured latency${c.flagged ? `: flagged (${c.flags.join("; ")})` : ""}`,
      );
    return breakdown;
  } catch (e) {
    note(`no breakdown for this cell: ${(e as Error).message}`);
    return undefined;
  }
}
