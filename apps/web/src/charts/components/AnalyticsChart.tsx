import type { AnalyticsData, ByTagData, CellNote, SeriesRef } from "../types.ts";
import { ByTagLines } from "./ByTagChart.tsx";
import { EmptyState, Figure, SMALL_CHART_HEIGHT } from "./common.tsx";

const has = (d: ByTagData) => d.rows.length > 0 && d.keys.length > 0;

/** Analytics latency (p50, p99) by query shape (thesis: analytics latency per shape). */
export function AnalyticsShapeChart(props: { systems: readonly SeriesRef[]; data: AnalyticsData | null; notes?: readonly CellNote[]; subtitle?: string }) {
  return (
    <Figure name="analytics-shape" title="Analytics latency by query shape" subtitle={props.subtitle} notes={props.notes}>
      {props.data && has(props.data.byShape) ? (
        <ByTagLines systems={props.systems} data={props.data.byShape} xLabel="query shape" height={SMALL_CHART_HEIGHT} />
      ) : (
        <EmptyState>No analytics latency by shape for this selection.</EmptyState>
      )}
    </Figure>
  );
}

/**
 * Analytics latency (p50, p99) against top n and depth d: linear queries
 * (n = 1) by depth, fan-out (d = 2) by top, exponential by n/d ordered by n^d
 * (thesis: latency vs top/depth).
 */
export function AnalyticsTopDepthChart(props: { systems: readonly SeriesRef[]; data: AnalyticsData | null; notes?: readonly CellNote[]; subtitle?: string }) {
  const d = props.data;
  const panels: Array<[string, ByTagData | undefined, string]> = [
    ["linear (top = 1)", d?.linear, "depth d"],
    ["fan-out (depth = 2)", d?.fanOut, "top n"],
    ["exponential", d?.exponential, "top n / depth d (ordered by n^d)"],
  ];
  const any = panels.some(([, p]) => p && has(p));
  return (
    <Figure name="analytics-top-depth" title="Analytics latency vs top / depth" subtitle={props.subtitle} notes={props.notes}>
      {!any ? (
        <EmptyState>No analytics latency by top/depth for this selection.</EmptyState>
      ) : (
        panels.map(([title, p, xLabel]) =>
          p && has(p) ? (
            <section key={title} data-panel={title} style={{ marginBottom: 12 }}>
              <h4 style={{ margin: "4px 0", fontSize: 13 }}>{title}</h4>
              <ByTagLines systems={props.systems} data={p} xLabel={xLabel} height={SMALL_CHART_HEIGHT} />
            </section>
          ) : null,
        )
      )}
    </Figure>
  );
}
