import { CartesianGrid, Legend, Line, LineChart, Tooltip, XAxis, YAxis } from "recharts";
import type { ByTagData, SeriesRef } from "../types.ts";
import { AXIS_STYLE, ChartBox, formatMs, legendOrder, logDomainOf, logTicks, NO_ANIMATION, pickSystems } from "./common.tsx";

/**
 * p50 (solid) and p99 (dashed) latency per category, one color per system, on a
 * log axis. Used by the cart-size and analytics charts.
 */
export function ByTagLines(props: { systems: readonly SeriesRef[]; data: ByTagData; xLabel: string; height?: number }) {
  const shown = pickSystems(props.systems, props.data.keys);
  const keys = shown.flatMap((s) => [`${s.key}_p50`, `${s.key}_p99`]);
  const [lo, hi] = logDomainOf(props.data.rows.flatMap((row) => keys.map((k) => row[k]))) ?? [0.1, 1000];
  return (
    <ChartBox height={props.height}>
      <LineChart data={props.data.rows} margin={{ top: 8, right: 16, bottom: 24, left: 16 }}>
        <CartesianGrid strokeDasharray="3 3" />
        <XAxis dataKey="x" type="category" tick={AXIS_STYLE} label={{ value: props.xLabel, position: "insideBottom", offset: -12 }} />
        <YAxis
          type="number"
          scale="log"
          domain={[lo, hi]}
          ticks={logTicks(lo, hi)}
          allowDataOverflow
          tick={AXIS_STYLE}
          tickFormatter={formatMs}
          width={72}
          label={{ value: "latency (ms, log scale)", angle: -90, position: "insideLeft", style: { textAnchor: "middle" } }}
        />
        <Tooltip formatter={(v) => (typeof v === "number" ? formatMs(v) : String(v ?? ""))} />
        <Legend verticalAlign="top" itemSorter={legendOrder(keys)} />
        {shown.map((s) => (
          <Line
            key={`${s.key}-p50`}
            dataKey={`${s.key}_p50`}
            name={`${s.name} p50`}
            stroke={s.color}
            strokeWidth={2}
            dot={{ r: 2 }}
            connectNulls
            {...NO_ANIMATION}
          />
        ))}
        {shown.map((s) => (
          <Line
            key={`${s.key}-p99`}
            dataKey={`${s.key}_p99`}
            name={`${s.name} p99`}
            stroke={s.color}
            strokeWidth={1.5}
            strokeDasharray="5 4"
            dot={{ r: 2 }}
            connectNulls
            {...NO_ANIMATION}
          />
        ))}
      </LineChart>
    </ChartBox>
  );
}
