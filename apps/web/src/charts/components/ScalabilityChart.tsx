import { CartesianGrid, Legend, Line, LineChart, Tooltip, XAxis, YAxis } from "recharts";
import type { ScalabilityData, SeriesRef } from "../types.ts";
import { AXIS_STYLE, ChartBox, EmptyState, Figure, formatNumber, legendOrder, NO_ANIMATION, pickSystems } from "./common.tsx";

/** Sustainable rate against the number of nodes (thesis: scalability), only with two or more node counts. */
export function ScalabilityChart(props: { systems: readonly SeriesRef[]; data: ScalabilityData }) {
  const { data } = props;
  const shown = pickSystems(props.systems, data.keys);
  return (
    <Figure name="scalability" title="Scalability: sustainable rate vs nodes" notes={data.notes}>
      {!data.available || shown.length === 0 ? (
        <EmptyState>{data.reason ?? "No scalability results."}</EmptyState>
      ) : (
        <ChartBox>
          <LineChart data={data.rows} margin={{ top: 8, right: 16, bottom: 24, left: 16 }}>
            <CartesianGrid strokeDasharray="3 3" />
            <XAxis
              dataKey="nodes"
              type="number"
              domain={["dataMin", "dataMax"]}
              allowDecimals={false}
              ticks={data.rows.map((r) => Number(r.nodes))}
              tick={AXIS_STYLE}
              label={{ value: "nodes", position: "insideBottom", offset: -12 }}
            />
            <YAxis
              tick={AXIS_STYLE}
              tickFormatter={formatNumber}
              label={{ value: "sustainable rate (offered checkouts/s)", angle: -90, position: "insideLeft", style: { textAnchor: "middle" } }}
            />
            <Tooltip formatter={(v) => (typeof v === "number" ? `${formatNumber(v)} checkouts/s` : "not sustainable")} labelFormatter={(n) => `${n} nodes`} />
            <Legend verticalAlign="top" itemSorter={legendOrder(shown.map((s) => s.key))} />
            {shown.map((s) => (
              <Line key={s.key} dataKey={s.key} name={s.name} stroke={s.color} strokeWidth={2} dot={{ r: 3 }} {...NO_ANIMATION} />
            ))}
          </LineChart>
        </ChartBox>
      )}
    </Figure>
  );
}
