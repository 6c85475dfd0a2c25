"use client";
import { Bar, BarChart, CartesianGrid, Legend, Tooltip, XAxis, YAxis } from "recharts";
import type { MicroRunData, OverheadBar } from "../experiment-types.ts";
import { AXIS_STYLE, BAR_CURSOR, ChartBox, EmptyState, Figure, formatMs, formatNumber, legendOrder, NO_ANIMATION, SMALL_CHART_HEIGHT } from "./common.tsx";
import { EcdfLinesChart } from "./EcdfLinesChart.tsx";

export const HANDLER_COLOR = "#009E73";
export const OVERHEAD_COLOR = "#D55E00";

const ms = (v: number | null) => (v === null ? "beyond 5 s" : formatMs(v));

/** One route's bars: at each offered rate, the p50 in-handler time with the p50 overhead stacked on it. */
function OverheadChart(props: { route: string; bars: readonly OverheadBar[] }) {
  const params = props.bars[0]?.parameters;
  return (
    <div data-route={props.route}>
      <Figure
        name="micro-overhead"
        title={`Invocation overhead: ${props.route}${params ? ` (${params})` : ""}`}
        subtitle="p50 in-handler time and p50 overhead (end to end minus in-handler), per offered rate"
      >
        <ChartBox height={SMALL_CHART_HEIGHT}>
          <BarChart data={props.bars.map((b) => ({ ...b, rate: `${formatNumber(b.offeredRate)}/s` }))} margin={{ top: 8, right: 16, bottom: 24, left: 16 }}>
            <CartesianGrid strokeDasharray="3 3" />
            <XAxis dataKey="rate" tick={AXIS_STYLE} label={{ value: "offered rate", position: "insideBottom", offset: -12 }} />
            <YAxis
              tick={AXIS_STYLE}
              tickFormatter={formatMs}
              width={72}
              label={{ value: "p50 (ms)", angle: -90, position: "insideLeft", style: { textAnchor: "middle" } }}
            />
            <Tooltip cursor={BAR_CURSOR} formatter={(v) => (typeof v === "number" ? formatMs(v) : "–")} />
            <Legend verticalAlign="top" itemSorter={legendOrder(["handlerMs", "overheadMs"])} />
            <Bar dataKey="handlerMs" name="in handler" stackId="p50" fill={HANDLER_COLOR} {...NO_ANIMATION} />
            <Bar dataKey="overheadMs" name="overhead" stackId="p50" fill={OVERHEAD_COLOR} {...NO_ANIMATION} />
          </BarChart>
        </ChartBox>
      </Figure>
    </div>
  );
}

/** The run page's microbenchmarks (docs/spec.md 8): overhead bars per route, empty's max rate, ping-pong eCDF and figures, divide, Big. */
export function MicroCharts(props: { data: MicroRunData }) {
  const d = props.data;
  if (!d.supported)
    return (
      <p data-testid="micro-unsupported" role="note">
        micro: not supported — {d.reason}
      </p>
    );
  const routes = [...new Set(d.overhead.map((o) => o.route))];
  return (
    <div data-testid="micro" data-charts="micro">
      {d.notes.length ? (
        <ul data-notes="true" style={{ fontSize: 13, color: "#8a4b00" }}>
          {d.notes.map((n, i) => (
            <li key={i}>{n}</li>
          ))}
        </ul>
      ) : null}
      <p data-testid="micro-empty-max-rate">
        Highest sustainable rate of <code>empty</code>:{" "}
        <strong>
          {d.emptyMaxRate.sustainableRate === null
            ? "none (even the lowest rate was not sustainable)"
            : `${formatNumber(d.emptyMaxRate.sustainableRate)} requests/s`}
        </strong>
        {d.emptyMaxRate.resolution !== null ? ` (knee known to +${(d.emptyMaxRate.resolution * 100).toFixed(1)}%)` : " (knee not bracketed)"}
      </p>
      {routes.length === 0 ? <EmptyState>No overhead measurements in this run.</EmptyState> : null}
      <div style={{ display: "grid", gridTemplateColumns: "repeat(auto-fit, minmax(320px, 1fr))", gap: 12 }}>
        {routes.map((r) => (
          <OverheadChart key={r} route={r} bars={d.overhead.filter((o) => o.route === r)} />
        ))}
      </div>
      <div className="table-wrap">
        <table className="table" data-testid="micro-overhead-table">
          <thead>
            <tr>
              <th>route</th>
              <th className="num">offered</th>
              <th className="num">achieved</th>
              <th className="num">requests</th>
              <th className="num">errors</th>
              <th className="num">end to end p50</th>
              <th className="num">p99</th>
              <th className="num">in handler p50</th>
              <th className="num">overhead p50</th>
            </tr>
          </thead>
          <tbody>
            {d.overhead.map((o) => (
              <tr key={o.label}>
                <td>
                  {o.route}
                  {o.parameters ? ` (${o.parameters})` : ""}
                </td>
                <td className="num">{formatNumber(o.offeredRate)}/s</td>
                <td className="num">{formatNumber(o.achievedRate)}/s</td>
                <td className="num">{o.requests}</td>
                <td className="num">{o.errors}</td>
                <td className="num">{formatMs(o.latencyP50Ms)}</td>
                <td className="num">{formatMs(o.latencyP99Ms)}</td>
                <td className="num">{formatMs(o.handlerMs)}</td>
                <td className="num">{formatMs(o.overheadMs)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <EcdfLinesChart
        name="micro-pingpong-ecdf"
        title="Ping-pong round-trip latency (eCDF)"
        subtitle="one line per configuration (pairs, message size)"
        lines={d.ecdf}
      />
      <div className="table-wrap">
        <table className="table" data-testid="micro-pingpong-table">
          <thead>
            <tr>
              <th>ping-pong</th>
              <th className="num">round trips</th>
              <th className="num">round trips/s</th>
              <th className="num">p50</th>
              <th className="num">p99</th>
              <th className="num">total</th>
            </tr>
          </thead>
          <tbody>
            {d.pingpong.map((p) => (
              <tr key={p.key}>
                <td>{p.label}</td>
                <td className="num">{p.messages}</td>
                <td className="num">{formatNumber(p.messagesPerS)}</td>
                <td className="num">{ms(p.p50Ms)}</td>
                <td className="num">{ms(p.p99Ms)}</td>
                <td className="num">{formatMs(p.totalMs)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <h3>Divide and conquer</h3>
      {d.divide.length === 0 ? (
        <EmptyState>No divide-and-conquer measurement in this run.</EmptyState>
      ) : (
        <table className="table" data-testid="micro-divide-table">
          <thead>
            <tr>
              <th className="num">items</th>
              <th className="num">fan-out</th>
              <th className="num">leaf</th>
              <th className="num">entities</th>
              <th className="num">time</th>
              <th className="num">request</th>
            </tr>
          </thead>
          <tbody>
            {d.divide.map((x) => (
              <tr key={`${x.items}-${x.fanout}-${x.leaf}`}>
                <td className="num">{x.items.toLocaleString("en-US")}</td>
                <td className="num">{x.fanout}</td>
                <td className="num">{x.leaf}</td>
                <td className="num">{x.entities}</td>
                <td className="num">{formatMs(x.totalMs)}</td>
                <td className="num">{formatMs(x.requestMs)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <h3>Big (many to many)</h3>
      {d.big.length === 0 ? (
        <EmptyState>No Big measurement in this run.</EmptyState>
      ) : (
        <table className="table" data-testid="micro-big-table">
          <thead>
            <tr>
              <th className="num">entities</th>
              <th className="num">messages</th>
              <th className="num">messages/s</th>
              <th className="num">time</th>
              <th className="num">request</th>
            </tr>
          </thead>
          <tbody>
            {d.big.map((x) => (
              <tr key={`${x.entities}-${x.messages}`}>
                <td className="num">{x.entities.toLocaleString("en-US")}</td>
                <td className="num">{x.messages.toLocaleString("en-US")}</td>
                <td className="num">{formatNumber(x.messagesPerS)}</td>
                <td className="num">{formatMs(x.totalMs)}</td>
                <td className="num">{formatMs(x.requestMs)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}
