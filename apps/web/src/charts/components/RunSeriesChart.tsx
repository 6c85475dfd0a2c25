import { CartesianGrid, Legend, Line, LineChart, Tooltip, XAxis, YAxis } from "recharts";
import type { RunSeriesData, SeriesRef } from "../types.ts";
import {
  AXIS_STYLE,
  ChartBox,
  EmptyState,
  Figure,
  formatMs,
  formatNumber,
  legendOrder,
  logDomainOf,
  logTicks,
  NO_ANIMATION,
  SMALL_CHART_HEIGHT,
} from "./common.tsx";

/** The run's per-second series: offered rate, successful/s with its 10 s moving average, errors and dropped iterations. */
export function RunSeriesChart(props: { system: SeriesRef; data: RunSeriesData | null; subtitle?: string; unit?: string }) {
  const d = props.data;
  const s = props.system;
  return (
    <Figure
      name="run-series"
      title={`Measured requests per second (${props.unit ?? "requests/s"})`}
      subtitle={props.subtitle}
      notes={d?.partial ? [{ key: s.key, name: s.name, reason: `series shorter than ${d.windowS} s: the average covers what exists` }] : []}
    >
      {!d || d.rows.length === 0 ? (
        <EmptyState>No per-second series in this cell.</EmptyState>
      ) : (
        <ChartBox>
          <LineChart data={d.rows} margin={{ top: 8, right: 16, bottom: 24, left: 16 }}>
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
              label={{ value: props.unit ?? "requests/s", angle: -90, position: "insideLeft", style: { textAnchor: "middle" } }}
            />
            <Tooltip formatter={(v) => (typeof v === "number" ? `${formatNumber(v)}/s` : "–")} labelFormatter={(t) => `t = ${t} s`} />
            <Legend verticalAlign="top" itemSorter={legendOrder(["offered", "successful", "ma", "errors", "dropped"])} />
            <Line dataKey="offered" name="offered" stroke="#333" strokeDasharray="4 3" dot={false} type="stepAfter" connectNulls={false} {...NO_ANIMATION} />
            <Line
              dataKey="successful"
              name={d.bucketS > 1 ? `${s.name} successful (mean of ${d.bucketS} s)` : `${s.name} successful`}
              stroke={s.color}
              strokeOpacity={0.4}
              dot={false}
              {...NO_ANIMATION}
            />
            <Line dataKey="ma" name={`${s.name} ${d.windowS} s average`} stroke={s.color} strokeWidth={2.5} dot={false} {...NO_ANIMATION} />
            <Line dataKey="errors" name="errors" stroke="#D55E00" dot={false} {...NO_ANIMATION} />
            <Line dataKey="dropped" name="dropped iterations" stroke="#999" dot={false} {...NO_ANIMATION} />
          </LineChart>
        </ChartBox>
      )}
    </Figure>
  );
}

/** p50 and p99 latency per second of the run, log axis. */
export function RunLatencySeriesChart(props: { system: SeriesRef; data: RunSeriesData | null; subtitle?: string }) {
  const d = props.data;
  const domain = logDomainOf((d?.rows ?? []).flatMap((r) => [r.p50, r.p99]));
  const [lo, hi] = domain ?? [0.1, 1000];
  return (
    <Figure name="run-latency-series" title="Latency per second" subtitle={props.subtitle}>
      {!domain ? (
        <EmptyState>No per-second latency in this cell.</EmptyState>
      ) : (
        <ChartBox height={SMALL_CHART_HEIGHT}>
          <LineChart data={d!.rows} margin={{ top: 8, right: 16, bottom: 24, left: 16 }}>
            <CartesianGrid strokeDasharray="3 3" />
            <XAxis
              dataKey="t"
              type="number"
              domain={["dataMin", "dataMax"]}
              tick={AXIS_STYLE}
              label={{ value: "time since start (s)", position: "insideBottom", offset: -12 }}
            />
            <YAxis
              type="number"
              scale="log"
              domain={[lo, hi]}
              ticks={logTicks(lo, hi)}
              allowDataOverflow
              tick={AXIS_STYLE}
              tickFormatter={formatMs}
              width={72}
              label={{ value: "latency (ms, log)", angle: -90, position: "insideLeft", style: { textAnchor: "middle" } }}
            />
            <Tooltip formatter={(v) => (typeof v === "number" ? formatMs(v) : "–")} labelFormatter={(t) => `t = ${t} s`} />
            <Legend verticalAlign="top" itemSorter={legendOrder(["p50", "p99"])} />
            <Line dataKey="p50" name="p50" stroke={props.system.color} strokeWidth={2} dot={false} {...NO_ANIMATION} />
            <Line dataKey="p99" name="p99" stroke={props.system.color} strokeDasharray="5 4" dot={false} {...NO_ANIMATION} />
          </LineChart>
        </ChartBox>
      )}
    </Figure>
  );
}
