import { Bar, BarChart, CartesianGrid, Legend, Tooltip, XAxis, YAxis, type BarShapeProps } from "recharts";
import type { LocData, SeriesRef } from "../types.ts";
import {
  BAR_CURSOR,
  AXIS_STYLE,
  byKey,
  ChartBox,
  EmptyState,
  Figure,
  formatNumber,
  legendOrder,
  NO_ANIMATION,
  SMALL_CHART_HEIGHT,
  SystemLegend,
} from "./common.tsx";

type LocRow = LocData["rows"][number] & { color: string };

/** Lines of code per system, application code and gateway stacked (thesis: development effort). */
export function LocChart(props: { systems: readonly SeriesRef[]; data: LocData }) {
  const refs = byKey(props.systems);
  const rows: LocRow[] = props.data.rows.map((r) => ({ ...r, color: refs.get(r.key)?.color ?? "#999" }));
  const shown = props.systems.filter((s) => rows.some((r) => r.key === s.key));
  return (
    <Figure name="loc" title="Lines of code (application + gateway)" notes={props.data.notes}>
      {!props.data.available ? (
        <EmptyState>No lines-of-code counts for these versions.</EmptyState>
      ) : (
        <>
          <ChartBox height={SMALL_CHART_HEIGHT}>
            <BarChart data={rows} margin={{ top: 8, right: 16, bottom: 8, left: 16 }}>
              <CartesianGrid strokeDasharray="3 3" vertical={false} />
              <XAxis dataKey="name" type="category" tick={AXIS_STYLE} />
              <YAxis
                tick={AXIS_STYLE}
                tickFormatter={formatNumber}
                label={{ value: "lines of code", angle: -90, position: "insideLeft", style: { textAnchor: "middle" } }}
              />
              <Tooltip cursor={BAR_CURSOR} formatter={(v) => (typeof v === "number" ? `${v} lines` : String(v ?? ""))} />
              <Legend verticalAlign="top" itemSorter={legendOrder(["app", "gateway"])} />
              <Bar dataKey="app" name="application code" stackId="loc" fill="#555" shape={AppShape} {...NO_ANIMATION} />
              <Bar dataKey="gateway" name="gateway code" stackId="loc" fill="#bbb" shape={GatewayShape} {...NO_ANIMATION} />
            </BarChart>
          </ChartBox>
          <SystemLegend systems={shown} suffix="solid: application · light: gateway" />
        </>
      )}
    </Figure>
  );
}

/** A bar in its system's color (opacity tells app from gateway). */
function SystemColored(opacity: number) {
  return function Shape(props: BarShapeProps) {
    const row = props.payload as LocRow | undefined;
    if (!Number.isFinite(props.height) || props.height === 0) return <g />;
    const y = Math.min(props.y, props.y + props.height);
    return (
      <rect
        x={props.x}
        y={y}
        width={props.width}
        height={Math.abs(props.height)}
        fill={row?.color ?? String(props.fill)}
        fillOpacity={opacity}
        stroke={row?.color ?? "none"}
      />
    );
  };
}

const AppShape = SystemColored(1);
const GatewayShape = SystemColored(0.4);
