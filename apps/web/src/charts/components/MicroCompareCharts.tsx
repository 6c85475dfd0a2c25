"use client";
import { Bar, BarChart, CartesianGrid, Legend, Line, LineChart, Tooltip, XAxis, YAxis } from "recharts";
import type { MicroCompareData } from "../experiment-types.ts";
import { AXIS_STYLE, BAR_CURSOR, ChartBox, EmptyState, Figure, formatMs, formatNumber, NO_ANIMATION, Notes, pickSystems, SystemLegend } from "./common.tsx";
import { EcdfLinesChart } from "./EcdfLinesChart.tsx";

/**
 * The compare page's microbenchmark charts: `empty`'s in-handler time and
 * overhead per system at each rate (a stacked bar per system: the in-handler
 * part in the system's color, the overhead hatched lighter), one ping-pong eCDF
 * per configuration with a line per system, and Big throughput against entities.
 */
export function MicroCompareCharts(props: { data: MicroCompareData }) {
  const d = props.data;
  const overheadSystems = pickSystems(d.systems, d.overhead.keys);
  const bigSystems = pickSystems(d.systems, d.big.keys);
  return (
    <div data-charts="micro-compare" data-testid="micro-compare">
      {d.systems.length === 0 ? <EmptyState>No compared system has microbenchmark results.</EmptyState> : null}
      <Notes notes={d.notes} />
      <Figure
        name="micro-overhead-compare"
        title="Invocation overhead of empty"
        subtitle="p50 in-handler time (solid) and p50 overhead (light) per system, at each offered rate"
      >
        {overheadSystems.length === 0 || d.overhead.rows.length === 0 ? (
          <EmptyState>No overhead measurement of empty.</EmptyState>
        ) : (
          <>
            <ChartBox>
              <BarChart
                data={d.overhead.rows.map((r) => ({ ...r, label: `${formatNumber(Number(r.rate))}/s` }))}
                margin={{ top: 8, right: 16, bottom: 24, left: 16 }}
              >
                <CartesianGrid strokeDasharray="3 3" />
                <XAxis dataKey="label" tick={AXIS_STYLE} label={{ value: "offered rate", position: "insideBottom", offset: -12 }} />
                <YAxis
                  tick={AXIS_STYLE}
                  tickFormatter={formatMs}
                  width={72}
                  label={{ value: "p50 (ms)", angle: -90, position: "insideLeft", style: { textAnchor: "middle" } }}
                />
                <Tooltip cursor={BAR_CURSOR} formatter={(v) => (typeof v === "number" ? formatMs(v) : "–")} />
                {overheadSystems.flatMap((s) => [
                  <Bar key={`${s.key}_handler`} dataKey={`${s.key}_handler`} name={`${s.name}: in handler`} stackId={s.key} fill={s.color} {...NO_ANIMATION} />,
                  <Bar
                    key={`${s.key}_overhead`}
                    dataKey={`${s.key}_overhead`}
                    name={`${s.name}: overhead`}
                    stackId={s.key}
                    fill={s.color}
                    fillOpacity={0.4}
                    {...NO_ANIMATION}
                  />,
                ])}
              </BarChart>
            </ChartBox>
            <SystemLegend systems={overheadSystems} suffix="solid: in handler · light: overhead" />
          </>
        )}
      </Figure>
      {d.pingpong.length === 0 ? (
        <Figure name="micro-pingpong-ecdf" title="Ping-pong round-trip latency (eCDF)">
          <EmptyState>No ping-pong measurement.</EmptyState>
        </Figure>
      ) : (
        d.pingpong.map((c) => (
          <div key={c.key} data-config={c.key}>
            <EcdfLinesChart name="micro-pingpong-ecdf" title="Ping-pong round-trip latency (eCDF)" subtitle={c.label} lines={c.lines} />
          </div>
        ))
      )}
      <Figure name="micro-big" title="Big: messages per second vs entities" subtitle="every entity messages random others">
        {bigSystems.length === 0 ? (
          <EmptyState>No Big measurement.</EmptyState>
        ) : (
          <ChartBox>
            <LineChart data={d.big.rows} margin={{ top: 8, right: 16, bottom: 24, left: 16 }}>
              <CartesianGrid strokeDasharray="3 3" />
              <XAxis
                dataKey="entities"
                type="number"
                scale="log"
                domain={["dataMin", "dataMax"]}
                ticks={d.big.rows.map((r) => Number(r.entities))}
                tick={AXIS_STYLE}
                tickFormatter={formatNumber}
                label={{ value: "entities (log scale)", position: "insideBottom", offset: -12 }}
              />
              <YAxis
                tick={AXIS_STYLE}
                tickFormatter={formatNumber}
                label={{ value: "messages/s", angle: -90, position: "insideLeft", style: { textAnchor: "middle" } }}
              />
              <Tooltip
                formatter={(v) => (typeof v === "number" ? `${formatNumber(v)} messages/s` : "–")}
                labelFormatter={(n) => `${formatNumber(Number(n))} entities`}
              />
              <Legend verticalAlign="top" />
              {bigSystems.map((s) => (
                <Line key={s.key} dataKey={s.key} name={s.name} stroke={s.color} strokeWidth={2} dot={{ r: 3 }} connectNulls {...NO_ANIMATION} />
              ))}
            </LineChart>
          </ChartBox>
        )}
      </Figure>
    </div>
  );
}
