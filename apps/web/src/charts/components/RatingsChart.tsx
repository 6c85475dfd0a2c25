import { Bar, BarChart, CartesianGrid, Legend, Tooltip, XAxis, YAxis } from "recharts";
import type { RatingsData, SeriesRef } from "../types.ts";
import { BAR_CURSOR, AXIS_STYLE, ChartBox, EmptyState, Figure, legendOrder, NO_ANIMATION, pickSystems, SMALL_CHART_HEIGHT } from "./common.tsx";

/** Community ratings 1-5: mean per system with the number of ratings (SPEC 5, development effort). */
export function RatingsChart(props: { systems: readonly SeriesRef[]; data: RatingsData }) {
  const { data } = props;
  const shown = pickSystems(props.systems, Object.keys(data.counts));
  return (
    <Figure name="ratings" title="Ratings (1–5, mean)" notes={data.notes}>
      {!data.available || shown.length === 0 ? (
        <EmptyState>No ratings yet for these systems.</EmptyState>
      ) : (
        <ChartBox height={SMALL_CHART_HEIGHT}>
          <BarChart data={data.rows} margin={{ top: 8, right: 16, bottom: 8, left: 16 }}>
            <CartesianGrid strokeDasharray="3 3" vertical={false} />
            <XAxis dataKey="metric" type="category" tick={AXIS_STYLE} />
            <YAxis
              type="number"
              domain={[0, 5]}
              ticks={[0, 1, 2, 3, 4, 5]}
              tick={AXIS_STYLE}
              label={{ value: "mean rating (1–5)", angle: -90, position: "insideLeft", style: { textAnchor: "middle" } }}
            />
            <Tooltip cursor={BAR_CURSOR} formatter={(v) => (typeof v === "number" ? v.toFixed(2) : String(v ?? ""))} />
            <Legend verticalAlign="top" itemSorter={legendOrder(shown.map((s) => s.key))} />
            {shown.map((s) => {
              const n = data.counts[s.key] ?? 0;
              return <Bar key={s.key} dataKey={s.key} name={`${s.name} (${n} rating${n === 1 ? "" : "s"})`} fill={s.color} {...NO_ANIMATION} />;
            })}
          </BarChart>
        </ChartBox>
      )}
    </Figure>
  );
}
