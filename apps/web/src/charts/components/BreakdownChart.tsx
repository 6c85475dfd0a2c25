import { useState } from "react";
import { Bar, BarChart, CartesianGrid, Legend, Tooltip, XAxis, YAxis } from "recharts";
import type { BreakdownData, CellNote, Row } from "../types.ts";
import { BAR_CURSOR, AXIS_STYLE, ChartBox, EmptyState, Figure, formatMs, legendOrder, NO_ANIMATION } from "./common.tsx";

/**
 * Where the time of a request goes, from spans: gateway / function per entity /
 * network + queueing, stacked, absolute (ms) or as shares (thesis: latency
 * breakdown). Without spans: an empty state, never made-up numbers.
 */
export function BreakdownChart(props: { data: BreakdownData | null; notes?: readonly CellNote[]; subtitle?: string }) {
  const [mode, setMode] = useState<"ms" | "share">("ms");
  const d = props.data;
  const notes = [...(props.notes ?? []), ...(d && d.available ? d.notes : [])];
  if (!d || !d.available) {
    return (
      <Figure name="breakdown" title="Latency breakdown" subtitle={props.subtitle} notes={props.notes}>
        <EmptyState>{d ? d.reason : "No breakdown for this selection."}</EmptyState>
      </Figure>
    );
  }
  const overall = d.rows.filter((r) => r.group === "all");
  const groups = d.rows.filter((r) => r.group !== "all");
  const chart = (rows: Row[], height: number, vertical: boolean) => (
    <ChartBox height={height}>
      <BarChart
        data={rows}
        layout={vertical ? "vertical" : "horizontal"}
        stackOffset={mode === "share" ? "expand" : "none"}
        margin={{ top: 8, right: 16, bottom: 24, left: 16 }}
      >
        <CartesianGrid strokeDasharray="3 3" />
        {vertical ? (
          <>
            <XAxis
              type="number"
              tick={AXIS_STYLE}
              tickFormatter={mode === "share" ? pct : formatMs}
              label={{ value: mode === "share" ? "share of request time" : "mean time per request (ms)", position: "insideBottom", offset: -12 }}
            />
            <YAxis type="category" dataKey="label" tick={AXIS_STYLE} width={170} />
          </>
        ) : (
          <>
            <XAxis type="category" dataKey="label" tick={AXIS_STYLE} />
            <YAxis
              type="number"
              tick={AXIS_STYLE}
              tickFormatter={mode === "share" ? pct : formatMs}
              label={{
                value: mode === "share" ? "share of request time" : "mean time per request (ms)",
                angle: -90,
                position: "insideLeft",
                style: { textAnchor: "middle" },
              }}
            />
          </>
        )}
        <Tooltip
          cursor={BAR_CURSOR}
          formatter={(v, _name, item) =>
            typeof v === "number" ? `${formatMs(v)} (${pct(v / Number((item?.payload as Row | undefined)?.total ?? v))})` : String(v ?? "")
          }
        />
        <Legend verticalAlign="top" itemSorter={legendOrder(d.components.map((c) => c.key))} />
        {d.components.map((c) => (
          <Bar key={c.key} dataKey={c.key} name={c.label} stackId="t" fill={c.color} maxBarSize={72} {...NO_ANIMATION} />
        ))}
      </BarChart>
    </ChartBox>
  );
  const flagged = d.coverage.filter((c) => c.flagged);
  return (
    <Figure name="breakdown" title="Latency breakdown" subtitle={props.subtitle} notes={notes}>
      <ul data-testid="breakdown-coverage" style={{ fontSize: 13, margin: "0 0 8px", paddingLeft: 18 }}>
        {d.coverage.map((c) => (
          <li key={c.key} data-flagged={c.flagged ? "true" : "false"}>
            {d.coverage.length > 1 ? `${c.name}: ` : ""}
            {c.text}
            {c.flagged ? <strong className="invalid"> — flagged, not a measured fact: {c.flags.join("; ")}</strong> : null}
          </li>
        ))}
      </ul>
      <div role="group" aria-label="breakdown scale" style={{ marginBottom: 8, fontSize: 13 }}>
        {(["ms", "share"] as const).map((m) => (
          <button key={m} type="button" aria-pressed={mode === m} onClick={() => setMode(m)} style={{ marginRight: 6, fontWeight: mode === m ? 700 : 400 }}>
            {m === "ms" ? "absolute (ms)" : "shares"}
          </button>
        ))}
      </div>
      <div style={flagged.length ? { opacity: 0.45 } : undefined} title={flagged.length ? "flagged: see above" : undefined}>
        {chart(overall, 260, false)}
        {groups.length > 0 ? chart(groups, Math.max(200, 60 + groups.length * 22), true) : null}
      </div>
    </Figure>
  );
}

function pct(x: number): string {
  return Number.isFinite(x) ? `${Math.round(x * 1000) / 10} %` : "";
}
