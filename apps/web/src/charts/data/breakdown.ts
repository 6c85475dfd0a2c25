/**
 * Latency breakdown from spans (SPEC 5): gateway / function per entity /
 * network + queueing, per cart size and query shape.
 *
 * The result schema leaves `cell.breakdown` open ("shape defined when the
 * breakdown is built"); this is the shape the charts read. Mean milliseconds
 * per measured request:
 *
 *   {
 *     "overall":    { "gatewayMs": 1.2, "functionMs": { "cart": 0.8, "product": 2.1 }, "networkMs": 3.4, "count": 1234 },
 *     "byCartSize": { "2": { ...same... }, "3": { ... } },   // optional
 *     "byShape":    { "linear": { ... }, "fan-out": { ... } } // optional
 *   }
 *
 * plus `coverage` (the share of the phase's requests with a complete trace and
 * how far the parts are from the measured latency; `flagged` with reasons).
 *
 * A breakdown that is absent gives the empty state "no spans for this run";
 * one in another shape says so. Never a made-up number. A flagged breakdown
 * (or one that does not say its coverage) is drawn faded under a warning, not
 * as fact.
 */
import { z } from "zod";
import type { Cell } from "@sfbench/core";
import type { BreakdownComponent, BreakdownCoverageNote, BreakdownData, CellNote, Row, SeriesRef } from "../types.ts";
import { BREAKDOWN_COLORS, BREAKDOWN_FALLBACK_COLORS } from "./palette.ts";
import { round } from "./series.ts";

const ms = z.number().nonnegative();
export const BreakdownPart = z.object({
  gatewayMs: ms,
  functionMs: z.record(z.string(), ms),
  networkMs: ms,
  count: z.number().int().nonnegative().optional(),
});
export type BreakdownPart = z.infer<typeof BreakdownPart>;

/** workloads' trace/breakdown.ts BreakdownCoverage: written since breakdowns say how much of the phase they cover */
export const BreakdownCoverage = z.object({
  requests: z.number().int().nonnegative(),
  traced: z.number().int().nonnegative(),
  complete: z.number().int().nonnegative(),
  share: z.number().min(0).max(1),
  clientMs: ms,
  sumMs: ms,
  deviation: ms,
  flagged: z.boolean(),
  flags: z.array(z.string()),
});

export const Breakdown = z.object({
  overall: BreakdownPart,
  coverage: BreakdownCoverage.optional(),
  byCartSize: z.record(z.string(), BreakdownPart).optional(),
  byShape: z.record(z.string(), BreakdownPart).optional(),
});
export type Breakdown = z.infer<typeof Breakdown>;

export const NO_SPANS = "no spans for this run: the target wrote no span lines (SFBENCH_TRACE), so there is no breakdown";

export type ParsedBreakdown = { ok: true; breakdown: Breakdown } | { ok: false; reason: string };

export function parseBreakdown(raw: Cell["breakdown"]): ParsedBreakdown {
  if (raw === undefined || raw === null) return { ok: false, reason: NO_SPANS };
  const r = Breakdown.safeParse(raw);
  if (r.success) return { ok: true, breakdown: r.data };
  const first = r.error.issues[0];
  return {
    ok: false,
    reason: `the breakdown is not in a shape this page reads (${first ? `${first.path.join(".") || "(root)"}: ${first.message}` : "invalid"}), so it is not drawn`,
  };
}

const ENTITY_ORDER = ["product", "user", "cart", "order"];

/**
 * Stacked-bar rows: one per system for "all requests", then one per cart size
 * or shape. Components: gateway, function:<entity> (every entity any system
 * has), network (+ queueing).
 */
export function breakdownData(entries: ReadonlyArray<{ system: SeriesRef; raw: Cell["breakdown"] }>): BreakdownData {
  const notes: CellNote[] = [];
  const parsed: Array<{ system: SeriesRef; b: Breakdown }> = [];
  for (const e of entries) {
    const p = parseBreakdown(e.raw);
    if (p.ok) parsed.push({ system: e.system, b: p.breakdown });
    else notes.push({ key: e.system.key, name: e.system.name, reason: p.reason });
  }
  if (parsed.length === 0) {
    const reasons = new Set(notes.map((n) => n.reason));
    return { available: false, reason: reasons.size === 1 ? [...reasons][0]! : NO_SPANS, notes };
  }
  const entities = new Set<string>();
  const parts = (b: Breakdown) => [b.overall, ...Object.values(b.byCartSize ?? {}), ...Object.values(b.byShape ?? {})];
  for (const { b } of parsed) for (const part of parts(b)) for (const e of Object.keys(part.functionMs)) entities.add(e);
  const entityList = [...entities].sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
  let fallback = 0;
  const components: BreakdownComponent[] = [
    { key: "gateway", label: "gateway", color: BREAKDOWN_COLORS.gateway! },
    ...entityList.map((e) => ({
      key: `function:${e}`,
      label: `function: ${e}`,
      color: BREAKDOWN_COLORS[`function:${e}`] ?? BREAKDOWN_FALLBACK_COLORS[fallback++ % BREAKDOWN_FALLBACK_COLORS.length]!,
    })),
    { key: "network", label: "network + queueing", color: BREAKDOWN_COLORS.network! },
  ];
  const row = (system: SeriesRef, group: string, part: BreakdownPart): Row => {
    const r: Row = { label: group === "all" ? system.name : `${system.name} · ${group}`, system: system.key, group };
    r.gateway = round(part.gatewayMs);
    for (const e of entityList) r[`function:${e}`] = round(part.functionMs[e] ?? 0);
    r.network = round(part.networkMs);
    r.total = round(part.gatewayMs + Object.values(part.functionMs).reduce((a, b) => a + b, 0) + part.networkMs);
    return r;
  };
  const rows: Row[] = [];
  for (const { system, b } of parsed) rows.push(row(system, "all", b.overall));
  for (const { system, b } of parsed) {
    const sizes = Object.keys(b.byCartSize ?? {}).sort((x, y) => Number(x) - Number(y));
    for (const k of sizes) rows.push(row(system, `${k} products`, b.byCartSize![k]!));
    for (const [k, part] of Object.entries(b.byShape ?? {})) rows.push(row(system, k, part));
  }
  const coverage: BreakdownCoverageNote[] = parsed.map(({ system, b }) => coverageNote(system, b));
  return { available: true, components, rows, notes, coverage };
}

const pct1 = (x: number) => `${(x * 100).toFixed(1)}%`;

/** How much of the phase a system's breakdown covers; a breakdown that does not say is flagged too. */
export function coverageNote(system: SeriesRef, b: Breakdown): BreakdownCoverageNote {
  const c = b.coverage;
  if (!c) {
    return {
      key: system.key,
      name: system.name,
      text: "coverage not recorded (a document written before breakdowns said how many requests they cover)",
      flagged: true,
      flags: ["the share of the phase's requests with a complete trace is unknown"],
    };
  }
  return {
    key: system.key,
    name: system.name,
    text: `complete traces for ${pct1(c.share)} of the phase's ${c.requests.toLocaleString("en-US")} requests; the parts add up to ${c.sumMs.toFixed(2)} ms, ${pct1(c.deviation)} off the measured mean of ${c.clientMs.toFixed(2)} ms`,
    flagged: c.flagged,
    flags: [...c.flags],
  };
}

function rank(entity: string): number {
  const i = ENTITY_ORDER.indexOf(entity);
  return i < 0 ? ENTITY_ORDER.length : i;
}
