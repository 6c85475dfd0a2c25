/**
 * Pieces every chart uses: the <figure data-chart> frame with its caption,
 * the empty state, notes (why a system has no numbers), an HTML legend of
 * system colors, and number formats. Text is rendered by React, so names
 * such as "<script>" stay text.
 */
import type { CSSProperties, ReactNode } from "react";
import { ResponsiveContainer, type LegendPayload } from "recharts";
import type { CellNote, SeriesRef } from "../types.ts";

export const CHART_HEIGHT = 300;
export const SMALL_CHART_HEIGHT = 240;

export const AXIS_STYLE = { fontSize: 12 } as const;
export const NO_ANIMATION = { isAnimationActive: false } as const;
/** a light hover band for bar charts (the default gray hides the bars) */
export const BAR_CURSOR = { fill: "rgba(0, 0, 0, 0.05)" } as const;

export function Figure(props: { name: string; title: string; subtitle?: ReactNode; notes?: readonly CellNote[]; children: ReactNode }) {
  return (
    <figure data-chart={props.name} className="sfb-chart" style={figureStyle}>
      <figcaption style={{ marginBottom: 8 }}>
        <strong>{props.title}</strong>
        {props.subtitle ? <span style={{ color: "#555", marginLeft: 8, fontSize: 13 }}>{props.subtitle}</span> : null}
      </figcaption>
      {props.children}
      <Notes notes={props.notes ?? []} />
    </figure>
  );
}

const figureStyle: CSSProperties = { margin: "0 0 24px", padding: 12, border: "1px solid #e5e5e5", borderRadius: 6, minWidth: 0 };

/** A fixed-height box whose width follows the page. */
export function ChartBox(props: { height?: number; children: ReactNode }) {
  const height = props.height ?? CHART_HEIGHT;
  return (
    <div className="sfb-chart-box" style={{ width: "100%", height }}>
      <ResponsiveContainer width="100%" height={height}>
        {props.children}
      </ResponsiveContainer>
    </div>
  );
}

export function EmptyState(props: { children: ReactNode }) {
  return (
    <p data-empty="true" role="note" className="sfb-chart-empty" style={emptyStyle}>
      {props.children}
    </p>
  );
}

const emptyStyle: CSSProperties = { padding: "24px 12px", color: "#555", background: "#fafafa", borderRadius: 4, textAlign: "center" };

export function Notes(props: { notes: readonly CellNote[] }) {
  if (props.notes.length === 0) return null;
  return (
    <ul data-notes="true" className="sfb-chart-notes" style={{ margin: "8px 0 0", paddingLeft: 18, fontSize: 12, color: "#8a4b00" }}>
      {props.notes.map((n, i) => (
        <li key={`${n.key}-${i}`}>
          <strong>{n.name}</strong>: {n.reason}
        </li>
      ))}
    </ul>
  );
}

/** Swatches with system names, for charts whose Recharts legend cannot show one color per system. */
export function SystemLegend(props: { systems: readonly SeriesRef[]; suffix?: ReactNode }) {
  return (
    <ul
      className="sfb-legend"
      data-legend="systems"
      style={{ listStyle: "none", display: "flex", flexWrap: "wrap", gap: 16, padding: 0, margin: "8px 0 0", fontSize: 13 }}
    >
      {props.systems.map((s) => (
        <li key={s.key} style={{ display: "flex", alignItems: "center", gap: 6 }}>
          <span aria-hidden="true" style={{ display: "inline-block", width: 12, height: 12, borderRadius: 2, background: s.color }} />
          {s.name}
        </li>
      ))}
      {props.suffix ? <li style={{ color: "#555" }}>{props.suffix}</li> : null}
    </ul>
  );
}

export function byKey(systems: readonly SeriesRef[]): Map<string, SeriesRef> {
  return new Map(systems.map((s) => [s.key, s]));
}

/** Systems among `systems` whose key is in `keys`, in the systems' order. */
export function pickSystems(systems: readonly SeriesRef[], keys: readonly string[]): SeriesRef[] {
  const set = new Set(keys);
  return systems.filter((s) => set.has(s.key));
}

export function formatMs(ms: number): string {
  if (!Number.isFinite(ms)) return "";
  if (ms === 0) return "0 ms";
  if (ms >= 1000) return `${trim(ms / 1000)} s`;
  if (ms >= 1) return `${trim(ms)} ms`;
  return `${trim(ms * 1000)} µs`;
}

export function formatNumber(x: number): string {
  if (!Number.isFinite(x)) return "";
  if (Math.abs(x) >= 1e6) return `${trim(x / 1e6)}M`;
  if (Math.abs(x) >= 1e4) return `${trim(x / 1e3)}k`;
  return trim(x);
}

function trim(x: number): string {
  const a = Math.abs(x);
  const digits = a >= 100 ? 0 : a >= 10 ? 1 : 2;
  return String(Number(x.toFixed(digits)));
}

/** Ticks at 1-2-5 steps of each decade within [lo, hi], for a log axis. */
export function logTicks(lo: number, hi: number): number[] {
  if (!(lo > 0) || !(hi >= lo)) return [];
  const within = (mantissas: readonly number[]) => {
    const ticks: number[] = [];
    for (let e = Math.floor(Math.log10(lo)); e <= Math.ceil(Math.log10(hi)); e++) {
      for (const m of mantissas) {
        const v = Number((m * 10 ** e).toPrecision(3));
        if (v >= lo && v <= hi) ticks.push(v);
      }
    }
    return ticks;
  };
  const coarse = within([1, 2, 5]);
  if (coarse.length >= 3) return coarse;
  const fine = within([1, 1.5, 2, 3, 4, 5, 6, 7, 8, 9]);
  return fine.length >= 2 ? fine : [lo, hi].map((v) => Number(v.toPrecision(3)));
}

/** The 1-2-5 step at or below x (down) or at or above x (up). */
function snap125(x: number, direction: "down" | "up"): number {
  const e = Math.floor(Math.log10(x));
  const candidates = [-1, 0, 1].flatMap((de) => [1, 2, 5].map((m) => Number((m * 10 ** (e + de)).toPrecision(3))));
  candidates.sort((a, b) => a - b);
  return direction === "down" ? candidates.filter((c) => c <= x).at(-1)! : candidates.find((c) => c >= x)!;
}

/** A log-axis domain around [min, max], widened to 1-2-5 steps so that both ends carry a tick. */
export function logDomain(domain: readonly [number, number]): [number, number] {
  const min = Math.max(0.001, Math.min(domain[0], domain[1]));
  const max = Math.max(min, domain[0], domain[1]);
  const lo = snap125(min * 0.95, "down");
  const hi = snap125(max * 1.05, "up");
  return [lo, Math.max(hi, snap125(lo * 2.01, "up"))];
}

/** A log-axis domain for positive values (null, 0 and negatives are left out); null when there are none. */
export function logDomainOf(values: ReadonlyArray<unknown>): [number, number] | null {
  let min = Infinity;
  let max = -Infinity;
  for (const v of values)
    if (typeof v === "number" && v > 0 && Number.isFinite(v)) {
      min = Math.min(min, v);
      max = Math.max(max, v);
    }
  return min === Infinity ? null : logDomain([min, max]);
}

/**
 * Legend items in the order of the given dataKeys (Recharts 3 sorts them by
 * name otherwise); unknown keys go last.
 */
export function legendOrder(keys: readonly string[], by: "dataKey" | "value" = "dataKey"): (item: LegendPayload) => number {
  const rank = new Map(keys.map((k, i) => [k, i]));
  return (item) => rank.get(String(by === "dataKey" ? item.dataKey : item.value)) ?? keys.length;
}
