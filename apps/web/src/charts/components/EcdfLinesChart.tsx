import { CartesianGrid, Legend, Line, LineChart, Tooltip, XAxis, YAxis } from "recharts";
import type { EcdfLine } from "../experiment-types.ts";
import type { CellNote } from "../types.ts";
import { AXIS_STYLE, ChartBox, EmptyState, Figure, formatMs, legendOrder, logDomainOf, logTicks, NO_ANIMATION } from "./common.tsx";

/** An eCDF of round-trip latency (log x axis) with one line per configuration or per system; lines whose round trips exceeded the last bucket end below 1 and say so. */
export function EcdfLinesChart(props: {
  name: string;
  title: string;
  subtitle?: string;
  lines: readonly EcdfLine[];
  notes?: readonly CellNote[];
  what?: string;
}) {
  const lines = props.lines.filter((l) => l.points.length > 0);
  const domain = logDomainOf(lines.flatMap((l) => l.points.map((p) => p.ms)));
  const beyond: CellNote[] = props.lines
    .filter((l) => l.beyond > 0)
    .map((l) => ({ key: l.key, name: l.name, reason: `${l.beyond} of ${l.total} round trips took longer than the last bucket (5 s)` }));
  const empty: CellNote[] = props.lines
    .filter((l) => l.points.length === 0)
    .map((l) => ({ key: l.key, name: l.name, reason: "no round trip in the histogram" }));
  return (
    <Figure name={props.name} title={props.title} subtitle={props.subtitle} notes={[...(props.notes ?? []), ...beyond, ...empty]}>
      {lines.length === 0 || !domain ? (
        <EmptyState>No round-trip histogram to draw.</EmptyState>
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
              label={{ value: "round trip (log scale, bucket upper bounds)", position: "insideBottom", offset: -12 }}
            />
            <YAxis
              type="number"
              domain={[0, 1]}
              ticks={[0, 0.25, 0.5, 0.75, 0.9, 0.99, 1]}
              tick={AXIS_STYLE}
              label={{ value: `share of ${props.what ?? "round trips"} ≤`, angle: -90, position: "insideLeft", style: { textAnchor: "middle" } }}
            />
            <Tooltip
              formatter={(v) => (typeof v === "number" ? `${(v * 100).toFixed(2)} %` : String(v ?? ""))}
              labelFormatter={(ms) => (typeof ms === "number" ? `≤ ${formatMs(ms)}` : String(ms))}
            />
            <Legend
              verticalAlign="top"
              itemSorter={legendOrder(
                lines.map((l) => l.name),
                "value",
              )}
            />
            {lines.map((l) => (
              <Line key={l.key} data={l.points} dataKey="p" name={l.name} stroke={l.color} strokeWidth={2} dot={false} type="linear" {...NO_ANIMATION} />
            ))}
          </LineChart>
        </ChartBox>
      )}
    </Figure>
  );
}
