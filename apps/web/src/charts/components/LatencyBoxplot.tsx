import { Bar, CartesianGrid, ComposedChart, Tooltip, XAxis, YAxis, type BarShapeProps } from "recharts";
import type { CellNote, LatencyBox, LatencyData, SeriesRef } from "../types.ts";
import { BAR_CURSOR, AXIS_STYLE, byKey, ChartBox, EmptyState, Figure, formatMs, logDomain, logTicks, NO_ANIMATION, SystemLegend } from "./common.tsx";

type BoxRow = LatencyBox & { key: string; name: string; color: string; range: [number, number] };

/**
 * Latency boxplot of the stable phase on a log axis: box p25..p75 with the
 * median, whiskers p1..p99, a dot at p99.9 (thesis: latency boxplots).
 * The bar spans p1..p99; its shape draws the rest, placed on the same log scale.
 */
export function LatencyBoxplot(props: { systems: readonly SeriesRef[]; data: LatencyData; notes?: readonly CellNote[]; subtitle?: string }) {
  const refs = byKey(props.systems);
  const rows: BoxRow[] = props.data.boxes.flatMap((b) => {
    const s = refs.get(b.key);
    return s ? [{ ...b, name: s.name, color: s.color, range: [b.p1, b.p99] as [number, number] }] : [];
  });
  const shown = props.systems.filter((s) => rows.some((r) => r.key === s.key));
  const domain = props.data.domain ? logDomain(props.data.domain) : null;
  return (
    <Figure name="latency-boxplot" title="Latency at stable load (boxplot)" subtitle={props.subtitle} notes={props.notes}>
      {rows.length === 0 || !domain ? (
        <EmptyState>No latency histogram to draw for this cell.</EmptyState>
      ) : (
        <>
          <ChartBox>
            <ComposedChart data={rows} margin={{ top: 8, right: 16, bottom: 8, left: 16 }}>
              <CartesianGrid strokeDasharray="3 3" vertical={false} />
              <XAxis dataKey="name" type="category" tick={AXIS_STYLE} />
              <YAxis
                type="number"
                scale="log"
                domain={domain}
                ticks={logTicks(domain[0], domain[1])}
                allowDataOverflow
                tick={AXIS_STYLE}
                tickFormatter={formatMs}
                width={72}
                label={{ value: "latency (ms, log scale)", angle: -90, position: "insideLeft", style: { textAnchor: "middle" } }}
              />
              <Tooltip cursor={BAR_CURSOR} content={BoxTooltip} />
              <Bar dataKey="range" name="p1..p99" shape={BoxShape} maxBarSize={56} {...NO_ANIMATION} />
            </ComposedChart>
          </ChartBox>
          <SystemLegend systems={shown} suffix="box p25–p75 with median · whiskers p1–p99 · dot p99.9" />
          <BoxTable rows={rows} />
        </>
      )}
    </Figure>
  );
}

/** Pixel position of v on the log scale that maps p1 to bottom and p99 to top. */
function place(v: number, p1: number, p99: number, top: number, bottom: number): number {
  if (p99 <= p1) return (top + bottom) / 2;
  return bottom - ((bottom - top) * (Math.log(v) - Math.log(p1))) / (Math.log(p99) - Math.log(p1));
}

function BoxShape(props: BarShapeProps) {
  const row = props.payload as BoxRow | undefined;
  if (!row || !Number.isFinite(props.y) || !Number.isFinite(props.height)) return <g />;
  const top = Math.min(props.y, props.y + props.height);
  const bottom = Math.max(props.y, props.y + props.height);
  const at = (v: number) => place(v, row.p1, row.p99, top, bottom);
  const x = props.x;
  const w = props.width;
  const mid = x + w / 2;
  const q1 = at(row.p25);
  const q3 = at(row.p75);
  const med = at(row.p50);
  const tail = at(row.p999);
  return (
    <g className="sfb-box" data-system={row.key}>
      <line x1={mid} x2={mid} y1={bottom} y2={q1} stroke={row.color} strokeWidth={1.5} />
      <line x1={mid} x2={mid} y1={q3} y2={top} stroke={row.color} strokeWidth={1.5} />
      <line x1={x + w * 0.25} x2={x + w * 0.75} y1={bottom} y2={bottom} stroke={row.color} strokeWidth={1.5} />
      <line x1={x + w * 0.25} x2={x + w * 0.75} y1={top} y2={top} stroke={row.color} strokeWidth={1.5} />
      <rect
        x={x}
        y={Math.min(q1, q3)}
        width={w}
        height={Math.max(1, Math.abs(q1 - q3))}
        fill={row.color}
        fillOpacity={0.3}
        stroke={row.color}
        strokeWidth={1.5}
      />
      <line x1={x} x2={x + w} y1={med} y2={med} stroke={row.color} strokeWidth={3} />
      <circle cx={mid} cy={tail} r={3.5} fill="#fff" stroke={row.color} strokeWidth={1.5} />
    </g>
  );
}

function BoxTooltip(props: { active?: boolean; payload?: ReadonlyArray<{ payload?: unknown }> }) {
  const row = props.active ? (props.payload?.[0]?.payload as BoxRow | undefined) : undefined;
  if (!row) return null;
  return (
    <div style={{ background: "#fff", border: "1px solid #ccc", padding: 8, fontSize: 12 }}>
      <strong>{row.name}</strong>
      <div>
        p1 {formatMs(row.p1)} · p25 {formatMs(row.p25)} · p50 {formatMs(row.p50)} · p75 {formatMs(row.p75)}
      </div>
      <div>
        p99 {formatMs(row.p99)} · p99.9 {formatMs(row.p999)} · max {formatMs(row.max)} · n = {row.count}
      </div>
    </div>
  );
}

function BoxTable(props: { rows: readonly BoxRow[] }) {
  const cols: Array<[keyof LatencyBox, string]> = [
    ["p1", "p1"],
    ["p25", "p25"],
    ["p50", "p50"],
    ["p75", "p75"],
    ["p99", "p99"],
    ["p999", "p99.9"],
    ["max", "max"],
  ];
  return (
    <table className="sfb-chart-table" style={{ fontSize: 12, marginTop: 8, borderCollapse: "collapse" }}>
      <thead>
        <tr>
          <th style={cell}>system</th>
          {cols.map(([, label]) => (
            <th key={label} style={cell}>
              {label}
            </th>
          ))}
          <th style={cell}>requests</th>
        </tr>
      </thead>
      <tbody>
        {props.rows.map((r) => (
          <tr key={r.key}>
            <td style={cell}>{r.name}</td>
            {cols.map(([k, label]) => (
              <td key={label} style={{ ...cell, textAlign: "right" }}>
                {formatMs(r[k])}
              </td>
            ))}
            <td style={{ ...cell, textAlign: "right" }}>{r.count}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

const cell = { padding: "2px 8px", borderBottom: "1px solid #eee" } as const;
