import { CartesianGrid, Legend, Line, LineChart, Tooltip, XAxis, YAxis } from "recharts";
import type { CellNote, SeriesRef, ThroughputData } from "../types.ts";
import { AXIS_STYLE, ChartBox, EmptyState, Figure, formatNumber, legendOrder, NO_ANIMATION } from "./common.tsx";

/** Successful requests per second over the run, thin, with the trailing 10 s moving average, thick (thesis: throughput over time). */
export function ThroughputChart(props: { systems: readonly SeriesRef[]; data: ThroughputData; notes?: readonly CellNote[]; subtitle?: string; unit?: string }) {
  const unit = props.unit ?? "requests/s";
  const { systems, data } = props;
  const partial = systems.filter((s) => data.partial.includes(s.key));
  const notes = [
    ...(props.notes ?? []),
    ...partial.map((s) => ({ key: s.key, name: s.name, reason: `series shorter than ${data.windowS} s: the average covers what exists` })),
  ];
  const raw = data.bucketS > 1 ? `mean of ${data.bucketS} s` : "per second";
  return (
    <Figure name="throughput" title="Throughput over time" subtitle={props.subtitle} notes={notes}>
      {systems.length === 0 || data.rows.length === 0 ? (
        <EmptyState>No per-second series to draw for this cell.</EmptyState>
      ) : (
        <ChartBox>
          <LineChart data={data.rows} margin={{ top: 8, right: 16, bottom: 24, left: 16 }}>
            <CartesianGrid strokeDasharray="3 3" />
            <XAxis
              dataKey="t"
              type="number"
              domain={["dataMin", "dataMax"]}
              tick={AXIS_STYLE}
              label={{ value: "time since start (s)", position: "insideBottom", offset: -12 }}
            />
            <YAxis
              tick={AXIS_STYLE}
              tickFormatter={formatNumber}
              label={{ value: `successful ${unit}`, angle: -90, position: "insideLeft", offset: 0, style: { textAnchor: "middle" } }}
            />
            <Tooltip formatter={(v) => (typeof v === "number" ? `${formatNumber(v)} ${unit}` : String(v ?? ""))} labelFormatter={(t) => `t = ${t} s`} />
            <Legend verticalAlign="top" itemSorter={legendOrder(systems.map((s) => `${s.key}_ma`))} />
            {systems.map((s) => (
              <Line
                key={`${s.key}-raw`}
                dataKey={s.key}
                name={`${s.name} (${raw})`}
                stroke={s.color}
                strokeOpacity={0.35}
                strokeWidth={1}
                dot={false}
                legendType="none"
                {...NO_ANIMATION}
              />
            ))}
            {systems.map((s) => (
              <Line
                key={`${s.key}-ma`}
                dataKey={`${s.key}_ma`}
                name={`${s.name} (${data.windowS} s average)`}
                stroke={s.color}
                strokeWidth={2.5}
                dot={false}
                {...NO_ANIMATION}
              />
            ))}
          </LineChart>
        </ChartBox>
      )}
    </Figure>
  );
}
