"use client";
import { useState } from "react";
import type { RunData } from "../types.ts";
import { AnalyticsShapeChart, AnalyticsTopDepthChart } from "./AnalyticsChart.tsx";
import { BreakdownChart } from "./BreakdownChart.tsx";
import { CartSizeChart } from "./CartSizeChart.tsx";
import { CellSelect } from "./CellSelect.tsx";
import { formatNumber } from "./common.tsx";
import { CostByProcessChart } from "./CostByProcessChart.tsx";
import { rateUnit } from "../../shared/format.ts";
import { LatencyBoxplot } from "./LatencyBoxplot.tsx";
import { LatencyEcdf } from "./LatencyEcdf.tsx";
import { RampChart } from "./RampChart.tsx";
import { RunLatencySeriesChart, RunSeriesChart } from "./RunSeriesChart.tsx";

/**
 * The charts of one run. A failed run shows its error and no numbers; an
 * invalid cell shows its invalidReason instead of charts.
 */
export function RunCharts(props: { data: RunData; initialCell?: string; onCellChange?: (key: string) => void }) {
  const { data } = props;
  const [selected, setSelected] = useState<string | null>(
    props.initialCell && data.cells.some((c) => c.ref.key === props.initialCell) ? props.initialCell : data.defaultCell,
  );
  if (data.failed) {
    return (
      <div className="sfb-run-charts" data-charts="run" data-run-failed="true">
        <p role="alert" style={{ padding: 12, background: "#fdecea", borderRadius: 4 }}>
          This run failed at stage <strong>{data.failed.stage}</strong>: {data.failed.message}. Failed runs are never plotted.
        </p>
      </div>
    );
  }
  const cell = data.cells.find((c) => c.ref.key === selected) ?? null;
  const select = (key: string) => {
    setSelected(key);
    props.onCellChange?.(key);
  };
  const systems = [data.system];
  return (
    <div className="sfb-run-charts" data-charts="run">
      <CellSelect cells={data.cells.map((c) => c.ref)} value={selected} onChange={select} />
      {!cell ? (
        <p role="note">This run has no cells.</p>
      ) : !cell.valid ? (
        <p role="note" data-invalid="true" style={{ padding: 12, background: "#fff4e5", borderRadius: 4 }}>
          <strong>{cell.ref.label} is invalid:</strong> {cell.invalidReason}. Its numbers are not shown.
        </p>
      ) : (
        <>
          <RampChart data={cell.ramp} subtitle={cell.ref.label} />
          <RunSeriesChart system={data.system} data={cell.series} subtitle={cell.ref.label} unit={rateUnit(cell.ref.workload)} />
          <RunLatencySeriesChart system={data.system} data={cell.series} subtitle={cell.ref.label} />
          <LatencyBoxplot systems={systems} data={cell.latency ?? { boxes: [], ecdf: {}, domain: null }} subtitle={cell.ref.label} />
          <LatencyEcdf systems={systems} data={cell.latency ?? { boxes: [], ecdf: {}, domain: null }} subtitle={cell.ref.label} />
          {cell.ref.workload === "analytics" ? (
            <>
              <AnalyticsShapeChart systems={systems} data={cell.analytics} subtitle={cell.ref.label} />
              <AnalyticsTopDepthChart systems={systems} data={cell.analytics} subtitle={cell.ref.label} />
            </>
          ) : (
            <CartSizeChart systems={systems} data={cell.cartSize} subtitle={cell.ref.label} />
          )}
          <BreakdownChart data={cell.breakdown} subtitle={cell.breakdownPhase ? `${cell.ref.label} · ${cell.breakdownPhase}` : cell.ref.label} />
          <CostByProcessChart cost={cell.cost} subtitle={cell.ref.label} />
          <dl
            className="sfb-run-summary"
            data-summary="cost"
            style={{ display: "grid", gridTemplateColumns: "max-content 1fr", gap: "4px 12px", fontSize: 13 }}
          >
            {cell.cost ? (
              <>
                <dt>CPU per 1000 requests</dt>
                <dd>
                  {cell.cost.coreSecondsPer1000 === null
                    ? "unknown: the stable phase completed no request"
                    : `${formatNumber(cell.cost.coreSecondsPer1000)} core-s`}
                </dd>
                <dt>Throughput per core</dt>
                <dd>
                  {formatNumber(cell.cost.throughputPerCore)} successful {rateUnit(cell.ref.workload)} per core
                </dd>
                <dt>Peak memory (target)</dt>
                <dd>{formatNumber(cell.cost.peakRssBytes / 2 ** 20)} MiB</dd>
                <dt>Load generator CPU share</dt>
                <dd>{(cell.cost.generatorCpuShare * 100).toFixed(0)} %</dd>
              </>
            ) : (
              <>
                <dt>Cost</dt>
                <dd>not measured</dd>
              </>
            )}
            <dt>Anomalies</dt>
            <dd>
              {cell.anomalies
                ? `${cell.anomalies.total}${
                    Object.keys(cell.anomalies.kinds).length
                      ? ` (${Object.entries(cell.anomalies.kinds)
                          .map(([k, v]) => `${k}: ${v}`)
                          .join(", ")})`
                      : ""
                  }`
                : "no audit"}
            </dd>
          </dl>
        </>
      )}
    </div>
  );
}
