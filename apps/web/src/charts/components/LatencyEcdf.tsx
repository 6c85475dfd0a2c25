import { CartesianGrid, Legend, Line, LineChart, Tooltip, XAxis, YAxis } from "recharts";
import type { CellNote, LatencyData, SeriesRef } from "../types.ts";
import { AXIS_STYLE, ChartBox, EmptyState, Figure, formatMs, logDomain, logTicks, NO_ANIMATION, legendOrder, pickSystems } from "./common.tsx";

/** Empirical CDF of the stable-phase latency on a log axis, from the decoded histogram (thesis: latency eCDF). */
export function LatencyEcdf(props: { systems: readonly SeriesRef[]; data: LatencyData; notes?: readonly CellNote[]; subtitle?: string }) {
  const shown = pickSystems(props.systems, Object.keys(props.data.ecdf));
  const domain = props.data.domain ? logDomain(props.data.domain) : null;
  return (
    <Figure name="latency-ecdf" title="Latency distribution (eCDF)" subtitle={props.subtitle} notes={props.notes}>
      {shown.length === 0 || !domain ? (
        <EmptyState>No latency histogram to draw for this cell.</EmptyState>
      ) : (
        <ChartBox>
          <LineChart margin={{ top: 8, right: 16, bottom: 24, left: 16 }}>
            <CartesianGrid strokeDasharray="3 3" />
            <XAxis
              dataKey="ms"
              type="number"
              scale="log"
              domain={domain}
              ticks={logTicks(domain[0], domain[1])}
              allowDataOverflow
              tick={AXIS_STYLE}
              tickFormatter={formatMs}
              label={{ value: "latency (ms, log scale)", position: "insideBottom", offset: -12 }}
            />
            <YAxis
              type="number"
              domain={[0, 1]}
              ticks={[0, 0.25, 0.5, 0.75, 0.9, 0.99, 1]}
              tick={AXIS_STYLE}
              label={{ value: "share of requests ≤ latency", angle: -90, position: "insideLeft", style: { textAnchor: "middle" } }}
            />
            <Tooltip
              formatter={(v) => (typeof v === "number" ? `${(v * 100).toFixed(2)} %` : String(v ?? ""))}
              labelFormatter={(ms) => (typeof ms === "number" ? formatMs(ms) : String(ms))}
            />
            <Legend
              verticalAlign="top"
              itemSorter={legendOrder(
                shown.map((s) => s.name),
                "value",
              )}
            />
            {shown.map((s) => (
              <Line
                key={s.key}
                data={props.data.ecdf[s.key]}
                dataKey="p"
                name={s.name}
                stroke={s.color}
                strokeWidth={2}
                dot={false}
                type="linear"
                {...NO_ANIMATION}
              />
            ))}
          </LineChart>
        </ChartBox>
      )}
    </Figure>
  );
}
