/**
 * Latency by tag of the stable phase (SPEC 5): by number of products in the
 * cart, by analytics query shape, and by (top, depth).
 */
import type { OutcomeSummary } from "@sfbench/core";
import type { AnalyticsData, ByTagData, Row } from "../types.ts";

type ByTag = Record<string, OutcomeSummary>;

export const SHAPES = ["linear", "fan-out", "exponential"] as const;

/**
 * Rows {x, <key>_p50, <key>_p99, <key>_n} over the union of categories, in
 * the given order; a tag without answered requests gives no numbers.
 */
export function byTagRows(
  bySystem: ReadonlyArray<{ key: string; tags: ByTag | undefined }>,
  order: (a: string, b: string) => number,
  label: (tag: string) => string | number = (tag) => tag,
): ByTagData {
  const tags = new Set<string>();
  for (const s of bySystem) for (const [tag, o] of Object.entries(s.tags ?? {})) if (o.latency.count > 0) tags.add(tag);
  const keys = bySystem.filter((s) => Object.values(s.tags ?? {}).some((o) => o.latency.count > 0)).map((s) => s.key);
  const rows: Row[] = [...tags].sort(order).map((tag) => {
    const row: Row = { x: label(tag) };
    for (const s of bySystem) {
      const o = s.tags?.[tag];
      const has = o !== undefined && o.latency.count > 0;
      row[`${s.key}_p50`] = has ? o.latency.p50 : null;
      row[`${s.key}_p99`] = has ? o.latency.p99 : null;
      row[`${s.key}_n`] = has ? o.latency.count : null;
    }
    return row;
  });
  return { rows, keys };
}

const numeric = (a: string, b: string) => Number(a) - Number(b) || a.localeCompare(b);

export function cartSizeData(bySystem: ReadonlyArray<{ key: string; tags: ByTag | undefined }>): ByTagData {
  return byTagRows(bySystem, numeric);
}

export function parseTopDepth(tag: string): { top: number; depth: number } | null {
  const m = /^(\d+)\/(\d+)$/.exec(tag);
  return m ? { top: Number(m[1]), depth: Number(m[2]) } : null;
}

function pick(tags: ByTag | undefined, keep: (td: { top: number; depth: number }) => boolean): ByTag {
  const out: ByTag = {};
  for (const [tag, o] of Object.entries(tags ?? {})) {
    const td = parseTopDepth(tag);
    if (td && keep(td)) out[tag] = o;
  }
  return out;
}

/**
 * Analytics latency by shape and by (top, depth), split as SPEC 4 draws the
 * shapes: linear (top = 1) against depth, fan-out (depth = 2) against top,
 * exponential (top >= 2, depth >= 3) against "top/depth" ordered by top^depth.
 */
export function analyticsData(bySystem: ReadonlyArray<{ key: string; byShape: ByTag | undefined; byTopDepth: ByTag | undefined }>): AnalyticsData {
  const shapeOrder = (a: string, b: string) => {
    const ia = SHAPES.indexOf(a as (typeof SHAPES)[number]);
    const ib = SHAPES.indexOf(b as (typeof SHAPES)[number]);
    return (ia < 0 ? 99 : ia) - (ib < 0 ? 99 : ib) || a.localeCompare(b);
  };
  const byTd = (keep: (td: { top: number; depth: number }) => boolean) => bySystem.map((s) => ({ key: s.key, tags: pick(s.byTopDepth, keep) }));
  const size = (tag: string) => {
    const td = parseTopDepth(tag)!;
    return td.top ** td.depth;
  };
  return {
    byShape: byTagRows(
      bySystem.map((s) => ({ key: s.key, tags: s.byShape })),
      shapeOrder,
    ),
    linear: byTagRows(
      byTd((td) => td.top === 1),
      (a, b) => parseTopDepth(a)!.depth - parseTopDepth(b)!.depth,
      (t) => parseTopDepth(t)!.depth,
    ),
    fanOut: byTagRows(
      byTd((td) => td.top >= 2 && td.depth === 2),
      (a, b) => parseTopDepth(a)!.top - parseTopDepth(b)!.top,
      (t) => parseTopDepth(t)!.top,
    ),
    exponential: byTagRows(
      byTd((td) => td.top >= 2 && td.depth >= 3),
      (a, b) => size(a) - size(b) || a.localeCompare(b),
    ),
  };
}
