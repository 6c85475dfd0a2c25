"use client";
import { rateUnit } from "../../shared/format.ts";
import { useState } from "react";
import type { CompareCell, CompareData } from "../types.ts";
import { AnalyticsShapeChart, AnalyticsTopDepthChart } from "./AnalyticsChart.tsx";
import { BreakdownChart } from "./BreakdownChart.tsx";
import { CartSizeChart } from "./CartSizeChart.tsx";
import { CellSelect } from "./CellSelect.tsx";
import { EmptyState } from "./common.tsx";
import { CostChart } from "./CostChart.tsx";
import { LatencyBoxplot } from "./LatencyBoxplot.tsx";
import { LatencyEcdf } from "./LatencyEcdf.tsx";
import { LocChart } from "./LocChart.tsx";
import { RatingsChart } from "./RatingsChart.tsx";
import { ScalabilityChart } from "./ScalabilityChart.tsx";
import { ThroughputChart } from "./ThroughputChart.tsx";

/**
 * Every chart of the compare page. The cell select drives the per-cell charts;
 * cart size follows the checkout cell and analytics the analytics cell of the
 * selected distribution; cost, scalability, LOC and ratings cover everything.
 */
export function CompareCharts(props: { data: CompareData; initialCell?: string; onCellChange?: (key: string) => void }) {
  const { data } = props;
  const [selected, setSelected] = useState<string | null>(
    props.initialCell && data.cells.some((c) => c.ref.key === props.initialCell) ? props.initialCell : data.defaultCell,
  );
  const cell = data.cells.find((c) => c.ref.key === selected) ?? null;
  const distribution = cell?.ref.distribution ?? "uniform";
  const find = (key: string): CompareCell | null => data.cells.find((c) => c.ref.key === key) ?? null;
  const checkout = cell && cell.ref.workload !== "analytics" && cell.cartSize ? cell : find(`checkout/${distribution}`);
  const analytics = find(`analytics/${distribution}`);
  const select = (key: string) => {
    setSelected(key);
    props.onCellChange?.(key);
  };
  return (
    <div className="sfb-compare-charts" data-charts="compare">
      {data.excluded.length > 0 ? (
        <div role="note" data-excluded="true" style={{ margin: "0 0 16px", padding: 12, background: "#fff4e5", borderRadius: 4, fontSize: 13 }}>
          <strong>Not plotted:</strong>
          <ul style={{ margin: "4px 0 0", paddingLeft: 18 }}>
            {data.excluded.map((e) => (
              <li key={e.slug}>
                <strong>{e.name}</strong>: {e.reason}
              </li>
            ))}
          </ul>
        </div>
      ) : null}
      {data.systems.length === 0 ? <EmptyState>Nothing to plot: no selected system has a completed run.</EmptyState> : null}
      <CellSelect cells={data.cells.map((c) => c.ref)} value={selected} onChange={select} />
      <ThroughputChart
        systems={data.systems}
        data={cell?.throughput ?? { rows: [], windowS: 10, bucketS: 1, partial: [], maxMovingAvg10s: {} }}
        notes={cell?.notes}
        subtitle={cell?.ref.label}
        unit={cell ? rateUnit(cell.ref.workload) : undefined}
      />
      <LatencyBoxplot systems={data.systems} data={cell?.latency ?? { boxes: [], ecdf: {}, domain: null }} notes={cell?.notes} subtitle={cell?.ref.label} />
      <LatencyEcdf systems={data.systems} data={cell?.latency ?? { boxes: [], ecdf: {}, domain: null }} notes={cell?.notes} subtitle={cell?.ref.label} />
      <CartSizeChart systems={data.systems} data={checkout?.cartSize ?? null} notes={checkout?.notes} subtitle={checkout?.ref.label} />
      <AnalyticsShapeChart systems={data.systems} data={analytics?.analytics ?? null} notes={analytics?.notes} subtitle={analytics?.ref.label} />
      <AnalyticsTopDepthChart systems={data.systems} data={analytics?.analytics ?? null} notes={analytics?.notes} subtitle={analytics?.ref.label} />
      <BreakdownChart data={cell?.breakdown ?? null} notes={cell?.notes} subtitle={cell?.ref.label} />
      <CostChart systems={data.systems} data={data.cost} />
      <ScalabilityChart systems={data.systems} data={data.scalability} />
      <LocChart systems={data.systems} data={data.loc} />
      <RatingsChart systems={data.systems} data={data.ratings} />
    </div>
  );
}
