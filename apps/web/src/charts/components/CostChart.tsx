import { Bar, BarChart, CartesianGrid, Legend, Tooltip, XAxis, YAxis } from "recharts";
import type { CostData, SeriesRef } from "../types.ts";
import { BAR_CURSOR, AXIS_STYLE, ChartBox, EmptyState, Figure, formatNumber, legendOrder, NO_ANIMATION, SMALL_CHART_HEIGHT } from "./common.tsx";

/** CPU core-seconds of the target per 1000 successful requests, and throughput per core, per cell (thesis: CPU usage). */
export function CostChart(props: { systems: readonly SeriesRef[]; data: CostData }) {
  const { systems, data } = props;
  const panel = (suffix: "_cpu" | "_tpc", yLabel: string, unit: string) => (
    <ChartBox height={SMALL_CHART_HEIGHT}>
      <BarChart data={data.rows} margin={{ top: 8, right: 16, bottom: 8, left: 16 }}>
        <CartesianGrid strokeDasharray="3 3" vertical={false} />
        <XAxis dataKey="cell" type="category" tick={AXIS_STYLE} />
        <YAxis
          tick={AXIS_STYLE}
          tickFormatter={formatNumber}
          width={64}
          label={{ value: yLabel, angle: -90, position: "insideLeft", style: { textAnchor: "middle" } }}
        />
        <Tooltip cursor={BAR_CURSOR} formatter={(v) => (typeof v === "number" ? `${formatNumber(v)} ${unit}` : String(v ?? ""))} />
        <Legend verticalAlign="top" itemSorter={legendOrder(systems.map((s) => `${s.key}${suffix}`))} />
        {systems.map((s) => (
          <Bar key={s.key} dataKey={`${s.key}${suffix}`} name={s.name} fill={s.color} {...NO_ANIMATION} />
        ))}
      </BarChart>
    </ChartBox>
  );
  return (
    <Figure name="cost" title="Cost: CPU per 1000 requests and throughput per core" notes={data.notes}>
      {!data.available || systems.length === 0 ? (
        <EmptyState>No cost measurements (CPU of the target&apos;s processes) in these runs.</EmptyState>
      ) : (
        <>
          <h4 style={{ margin: "4px 0", fontSize: 13 }}>CPU core-seconds per 1000 successful requests (lower is better)</h4>
          {panel("_cpu", "core-s / 1000 req", "core-s / 1000 req")}
          <h4 style={{ margin: "12px 0 4px", fontSize: 13 }}>Throughput per core (higher is better)</h4>
          {panel("_tpc", "successful checkouts (analytics: queries)/s per core", "successful /s per core")}
        </>
      )}
    </Figure>
  );
}
