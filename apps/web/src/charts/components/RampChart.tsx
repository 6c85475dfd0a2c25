import { Bar, CartesianGrid, ComposedChart, Legend, Line, ReferenceLine, Tooltip, XAxis, YAxis, type BarShapeProps } from "recharts";
import { fmtKneeCores } from "../../shared/format.ts";
import type { RampData, RampStep } from "../types.ts";
import { BAR_CURSOR, AXIS_STYLE, ChartBox, EmptyState, Figure, formatMs, formatNumber, legendOrder, NO_ANIMATION } from "./common.tsx";

const SUSTAINABLE = "#009E73";
const NOT_SUSTAINABLE = "#D55E00";
const CORES = "#0072B2";

/**
 * The max-throughput ramp: offered (gray) vs achieved rate per step; green
 * steps are sustainable (>= 95% completed, < 1% errors, p99 < 1 s), red ones
 * are not, with the reasons listed below; the dashed line is the sustainable rate.
 * Where the document says so, a line on the right axis gives the cores the
 * target used in each step, up to the cores it was given: a knee well below
 * them is something the target waits on, not its CPU.
 */
export function RampChart(props: { data: RampData | null; subtitle?: string }) {
  const d = props.data;
  const cores = d?.steps.some((s) => s.targetCores !== null) ?? false;
  const coresTop = d ? Math.max(d.kneeCores?.given ?? 0, ...d.steps.map((s) => s.targetCores ?? 0)) : 0;
  return (
    <Figure name="ramp" title="Max-throughput ramp: offered vs achieved" subtitle={props.subtitle}>
      {!d || d.steps.length === 0 ? (
        <EmptyState>No max-throughput ramp in this cell.</EmptyState>
      ) : (
        <>
          <ChartBox>
            <ComposedChart data={d.steps} margin={{ top: 8, right: 16, bottom: 24, left: 16 }}>
              <CartesianGrid strokeDasharray="3 3" vertical={false} />
              <XAxis
                dataKey="step"
                type="category"
                tick={AXIS_STYLE}
                tickFormatter={(step) => `${step}: ${formatNumber(d.steps[Number(step) - 1]?.offered ?? 0)}/s`}
                label={{ value: `step: offered rate (${d.unit})`, position: "insideBottom", offset: -12 }}
              />
              <YAxis
                yAxisId="rate"
                tick={AXIS_STYLE}
                tickFormatter={formatNumber}
                label={{ value: d.unit, angle: -90, position: "insideLeft", style: { textAnchor: "middle" } }}
              />
              {cores ? (
                <YAxis
                  yAxisId="cores"
                  orientation="right"
                  domain={[0, Math.ceil(coresTop * 10) / 10 || 1]}
                  tick={AXIS_STYLE}
                  tickFormatter={(v: number) => formatNumber(v)}
                  label={{ value: "target cores", angle: 90, position: "insideRight", style: { textAnchor: "middle" } }}
                />
              ) : null}
              <Tooltip cursor={BAR_CURSOR} content={StepTooltip} />
              <Legend verticalAlign="top" itemSorter={legendOrder(["offered", "achieved", "targetCores"])} />
              <Bar yAxisId="rate" dataKey="offered" name="offered" fill="#c8c8c8" maxBarSize={40} {...NO_ANIMATION} />
              <Bar
                yAxisId="rate"
                dataKey="achieved"
                name="achieved: successful, inside the step (green: sustainable, red: not)"
                fill={SUSTAINABLE}
                shape={StepBar}
                maxBarSize={40}
                {...NO_ANIMATION}
              />
              {cores ? (
                <Line
                  yAxisId="cores"
                  dataKey="targetCores"
                  name="cores the target used (right axis)"
                  stroke={CORES}
                  strokeWidth={2}
                  dot={{ r: 3 }}
                  connectNulls
                  {...NO_ANIMATION}
                />
              ) : null}
              {d.sustainableRate !== null ? (
                <ReferenceLine
                  yAxisId="rate"
                  y={d.sustainableRate}
                  stroke={SUSTAINABLE}
                  strokeDasharray="6 3"
                  label={{ value: `sustainable ${formatNumber(d.sustainableRate)}/s`, position: "insideTopLeft", fontSize: 12 }}
                />
              ) : null}
            </ComposedChart>
          </ChartBox>
          <p style={{ fontSize: 13, margin: "8px 0 0" }}>
            Sustainable rate (highest offered rate kept up with):{" "}
            <strong>{d.sustainableRate === null ? "none (no step was sustainable)" : `${formatNumber(d.sustainableRate)} ${d.unit} offered`}</strong> · peak
            (best 10 s moving average of successful, inside a step):{" "}
            <strong>
              {formatNumber(d.maxMovingAvg10s)} {d.unit}
            </strong>
            {d.movingAvgPartial ? " (every step shorter than 10 s: the best step's mean)" : ""}
            {d.kneeCores ? (
              <span data-testid="knee-cores">
                {" "}
                · at the knee the target used <strong>{fmtKneeCores(d.kneeCores.used, d.kneeCores.given)}</strong>
              </span>
            ) : null}
          </p>
          <p data-testid="knee-stop" style={{ fontSize: 13, margin: "4px 0 0" }}>
            {d.knee ? (
              <>
                Knee search stopped because {d.knee.reason}
                {d.knee.firstUnsustainableRate !== null ? `; first unsustainable step ${formatNumber(d.knee.firstUnsustainableRate)} ${d.unit}` : ""}
                {d.knee.resolution !== null ? `; resolution ${(d.knee.resolution * 100).toFixed(1)}%` : ""}
                {d.knee.targetResolution !== null
                  ? ` (the profile aims for ${Math.round(d.knee.targetResolution * 100)}%)`
                  : " (the profile does not bisect)"}. <strong>{d.knee.rankNote}</strong>
                {d.knee.procedure ? (
                  <>
                    <br />
                    <span data-testid="knee-procedure">{d.knee.procedure}</span>
                  </>
                ) : null}
              </>
            ) : (
              "This document did not record its knee search: a smoke test, not ranked."
            )}
          </p>
          <ul data-notes="true" style={{ fontSize: 12, margin: "4px 0 0", paddingLeft: 18 }}>
            {d.steps
              .filter((s) => !s.sustainable)
              .map((s) => (
                <li key={s.step}>
                  step {s.step} ({formatNumber(s.offered)}/s) not sustainable: {s.failedBecause.join("; ")}
                  {s.repeated ? `; failed narrowly, so step ${s.step + 1} ran the rate again and decides it` : ""}
                </li>
              ))}
          </ul>
        </>
      )}
    </Figure>
  );
}

function StepBar(props: BarShapeProps) {
  const step = props.payload as RampStep | undefined;
  if (!Number.isFinite(props.height)) return <g />;
  const y = Math.min(props.y, props.y + props.height);
  return (
    <rect
      x={props.x}
      y={y}
      width={props.width}
      height={Math.abs(props.height)}
      fill={step && !step.sustainable ? NOT_SUSTAINABLE : SUSTAINABLE}
      fillOpacity={0.8}
    />
  );
}

function StepTooltip(props: { active?: boolean; payload?: ReadonlyArray<{ payload?: unknown }> }) {
  const s = props.active ? (props.payload?.[0]?.payload as RampStep | undefined) : undefined;
  if (!s) return null;
  return (
    <div style={{ background: "#fff", border: "1px solid #ccc", padding: 8, fontSize: 12, maxWidth: 320 }}>
      <strong>
        step {s.step}: {formatNumber(s.offered)}/s offered for {s.durationS} s
      </strong>
      <div>
        achieved {formatNumber(s.achieved)}/s successful · completed {(s.completedShare * 100).toFixed(1)} % · errors {(s.errorRate * 100).toFixed(2)} % · p99{" "}
        {formatMs(s.p99)}
      </div>
      <div>{s.sustainable ? "sustainable" : `not sustainable: ${s.failedBecause.join("; ")}`}</div>
      {s.repeated ? <div>failed narrowly: the next step ran this rate again and its verdict counts</div> : null}
      {s.targetCores !== null ? <div>the target used {formatNumber(s.targetCores)} cores</div> : null}
    </div>
  );
}
