import { Bar, BarChart, CartesianGrid, Tooltip, XAxis, YAxis } from "recharts";
import type { RunCostSummary } from "../types.ts";
import { AXIS_STYLE, BAR_CURSOR, ChartBox, Figure, formatNumber, NO_ANIMATION } from "./common.tsx";

/**
 * Where the target's CPU goes: the cost per 1000 requests split by its
 * processes (the server, the service endpoint, the gateway, its own
 * database), one bar each. Only for a run that split it: a target counted by
 * its container's cgroup shows no figure rather than a guess.
 */
export function CostByProcessChart(props: { cost: RunCostSummary | null; subtitle?: string }) {
  const rows = props.cost?.byProcess ?? [];
  if (rows.length === 0) return null;
  const total = rows.reduce((sum, r) => sum + r.coreSeconds, 0);
  return (
    <Figure name="cost-by-process" title="CPU per 1000 requests by process" subtitle={props.subtitle}>
      <ChartBox height={Math.max(120, 36 * rows.length + 56)}>
        <BarChart data={rows} layout="vertical" margin={{ top: 8, right: 24, bottom: 24, left: 16 }}>
          <CartesianGrid strokeDasharray="3 3" />
          <XAxis
            type="number"
            tick={AXIS_STYLE}
            tickFormatter={formatNumber}
            label={{ value: "core-seconds per 1000, stable phase", position: "insideBottom", offset: -12 }}
          />
          <YAxis type="category" dataKey="label" tick={AXIS_STYLE} width={190} />
          <Tooltip
            cursor={BAR_CURSOR}
            formatter={(v) => (typeof v === "number" ? `${formatNumber(v)} core-s (${total > 0 ? ((v / total) * 100).toFixed(0) : 0} %)` : String(v ?? ""))}
          />
          <Bar dataKey="coreSeconds" name="core-seconds per 1000" fill="#4c78a8" maxBarSize={28} {...NO_ANIMATION} />
        </BarChart>
      </ChartBox>
      <ul data-testid="cost-by-process" style={{ fontSize: 13, margin: "8px 0 0", paddingLeft: 18 }}>
        {rows.map((r) => (
          <li key={r.label}>
            {r.label}: {formatNumber(r.coreSeconds)} core-s ({total > 0 ? ((r.coreSeconds / total) * 100).toFixed(0) : 0} %)
          </li>
        ))}
      </ul>
    </Figure>
  );
}
