"use client";
import { CartesianGrid, Legend, Line, LineChart, ReferenceLine, Tooltip, XAxis, YAxis } from "recharts";
import type { FaultView, RecoveryView, ResilienceRunData, ScaleUpView } from "../experiment-types.ts";
import type { SeriesRef } from "../types.ts";
import { AXIS_STYLE, ChartBox, EmptyState, Figure, formatNumber, legendOrder, NO_ANIMATION } from "./common.tsx";
import { ScalabilityChart } from "./ScalabilityChart.tsx";

const MARK_COLOR = "#CC0000";

/** A cell's successful and failed requests per second with the kill or the added node marked (ReferenceLine at its second). */
export function PhaseSeriesChart(props: { view: FaultView | ScaleUpView; color: string }) {
  const v = props.view;
  const name = v.kind === "fault" ? "fault-series" : "scale-up-series";
  const title = v.kind === "fault" ? "Throughput and errors around the kill" : "Throughput around the added node";
  const d = v.series;
  return (
    <Figure name={name} title={title} subtitle={v.cell}>
      {!d || d.rows.length === 0 ? (
        <EmptyState>No per-second series in this cell.</EmptyState>
      ) : (
        <ChartBox>
          <LineChart data={d.rows} margin={{ top: 16, right: 16, bottom: 24, left: 16 }}>
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
              label={{ value: "requests/s", angle: -90, position: "insideLeft", style: { textAnchor: "middle" } }}
            />
            <Tooltip formatter={(val) => (typeof val === "number" ? `${formatNumber(val)}/s` : "–")} labelFormatter={(t) => `t = ${t} s`} />
            <Legend verticalAlign="top" itemSorter={legendOrder(["offered", "successful", "errors", "dropped"])} />
            <ReferenceLine
              x={v.marker.atS}
              stroke={MARK_COLOR}
              strokeDasharray="4 2"
              strokeWidth={2}
              label={{ value: v.marker.label, position: "insideTopLeft", fill: MARK_COLOR, fontSize: 12 }}
              ifOverflow="extendDomain"
            />
            <Line dataKey="offered" name="offered" stroke="#333" strokeDasharray="4 3" dot={false} type="stepAfter" {...NO_ANIMATION} />
            <Line
              dataKey="successful"
              name={d.bucketS > 1 ? `successful (mean of ${d.bucketS} s)` : "successful"}
              stroke={props.color}
              strokeWidth={2}
              dot={false}
              {...NO_ANIMATION}
            />
            <Line dataKey="errors" name="errors (failed or no answer)" stroke="#D55E00" strokeWidth={2} dot={false} {...NO_ANIMATION} />
            <Line dataKey="dropped" name="dropped iterations" stroke="#999" dot={false} {...NO_ANIMATION} />
          </LineChart>
        </ChartBox>
      )}
    </Figure>
  );
}

function Figures(props: { testid: string; figures: ReadonlyArray<{ label: string; value: string }> }) {
  return (
    <dl data-testid={props.testid} style={{ display: "grid", gridTemplateColumns: "max-content 1fr", gap: "4px 12px", fontSize: 13, margin: "0 0 24px" }}>
      {props.figures.map((f) => (
        <div key={f.label} style={{ display: "contents" }}>
          <dt>{f.label}</dt>
          <dd style={{ margin: 0 }}>{f.value}</dd>
        </div>
      ))}
    </dl>
  );
}

/** Time from the kill until /health answered and until the first checkout succeeded, against the entities loaded. */
export function RecoveryChart(props: { data: RecoveryView; color: string }) {
  const { rows, points } = props.data;
  const failed = points.filter((p) => p.failure || p.healthAfterS === null || p.firstCheckoutAfterS === null);
  return (
    <Figure
      name="recovery"
      title="Recovery time vs state size"
      subtitle="after kill -9 and a restart with the same data"
      notes={failed.map((p, i) => ({
        key: `r${i}`,
        name: `${formatNumber(p.products + p.users)} entities`,
        reason: p.failure ?? (p.healthAfterS === null ? "health did not answer within the timeout" : "no checkout succeeded"),
      }))}
    >
      {rows.length === 0 ? (
        <EmptyState>No recovery points.</EmptyState>
      ) : (
        <ChartBox>
          <LineChart data={rows} margin={{ top: 8, right: 16, bottom: 24, left: 16 }}>
            <CartesianGrid strokeDasharray="3 3" />
            <XAxis
              dataKey="entities"
              type="number"
              scale="log"
              domain={["dataMin", "dataMax"]}
              ticks={rows.map((r) => Number(r.entities))}
              tick={AXIS_STYLE}
              tickFormatter={formatNumber}
              label={{ value: "entities loaded (products + users, log scale)", position: "insideBottom", offset: -12 }}
            />
            <YAxis tick={AXIS_STYLE} label={{ value: "seconds after the kill", angle: -90, position: "insideLeft", style: { textAnchor: "middle" } }} />
            <Tooltip
              formatter={(v) => (typeof v === "number" ? `${v} s` : "not within the timeout")}
              labelFormatter={(n) => `${formatNumber(Number(n))} entities`}
            />
            <Legend verticalAlign="top" itemSorter={legendOrder(["health", "checkout"])} />
            <Line dataKey="health" name="/health answers 200" stroke={props.color} strokeWidth={2} dot={{ r: 3 }} {...NO_ANIMATION} />
            <Line dataKey="checkout" name="first successful checkout" stroke="#D55E00" strokeWidth={2} dot={{ r: 3 }} {...NO_ANIMATION} />
          </LineChart>
        </ChartBox>
      )}
      <table className="table" data-testid="recovery-table" style={{ marginTop: 8 }}>
        <thead>
          <tr>
            <th className="num">products</th>
            <th className="num">users</th>
            <th className="num">health after</th>
            <th className="num">first checkout after</th>
            <th className="num">read back</th>
            <th className="num">missing</th>
            <th className="num">changed</th>
          </tr>
        </thead>
        <tbody>
          {points.map((p) => (
            <tr key={`${p.products}-${p.users}`}>
              <td className="num">{p.products.toLocaleString("en-US")}</td>
              <td className="num">{p.users.toLocaleString("en-US")}</td>
              <td className="num">{p.healthAfterS === null ? "timed out" : `${p.healthAfterS} s`}</td>
              <td className="num">{p.firstCheckoutAfterS === null ? "none" : `${p.firstCheckoutAfterS} s`}</td>
              <td className="num">{p.checked}</td>
              <td className="num">{p.missing}</td>
              <td className="num">{p.changed}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </Figure>
  );
}

/** The run page's resilience section: fault and scale-up phases per cell, recovery vs state size, scalability, and what the target could not do. */
export function ResilienceCharts(props: { data: ResilienceRunData; system: SeriesRef }) {
  const d = props.data;
  return (
    <div data-testid="resilience" data-charts="resilience">
      {d.faults.map((f) => (
        <div key={`fault-${f.cell}`} data-fault-cell={f.cell}>
          <PhaseSeriesChart view={f} color={props.system.color} />
          <Figures testid="fault-figures" figures={f.figures} />
        </div>
      ))}
      {d.scaleUps.map((s) => (
        <div key={`scale-up-${s.cell}`} data-scale-up-cell={s.cell}>
          <PhaseSeriesChart view={s} color={props.system.color} />
          <Figures testid="scale-up-figures" figures={s.figures} />
        </div>
      ))}
      {d.recovery ? <RecoveryChart data={d.recovery} color={props.system.color} /> : null}
      {d.scalability ? (
        <>
          <ScalabilityChart systems={[props.system]} data={d.scalability.chart} />
          <table className="table" data-testid="scalability-table" style={{ marginBottom: 24 }}>
            <caption style={{ textAlign: "left", fontSize: 13 }}>
              {d.scalability.environment}, requests routed by {d.scalability.routing === "balancer" ? "sfbench's balancer" : "the target itself"}
            </caption>
            <thead>
              <tr>
                <th className="num">nodes</th>
                <th className="num">max throughput</th>
                <th className="num">sustainable</th>
                <th className="num">speed-up</th>
                <th className="num">efficiency</th>
              </tr>
            </thead>
            <tbody>
              {d.scalability.points.map((p) => (
                <tr key={p.nodes}>
                  <td className="num">{p.nodes}</td>
                  <td className="num">{formatNumber(p.maxThroughput)}/s</td>
                  <td className="num">{p.sustainableRate === null ? "none" : `${formatNumber(p.sustainableRate)}/s`}</td>
                  <td className="num">{p.speedup}×</td>
                  <td className="num">{(p.efficiency * 100).toFixed(0)}%</td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      ) : null}
      {d.unsupported.length ? (
        <ul data-testid="resilience-unsupported">
          {d.unsupported.map((u) => (
            <li key={u.experiment}>
              <strong>{u.experiment}</strong>: not supported: {u.reason}
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}
