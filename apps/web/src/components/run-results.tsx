/** The numbers of a completed run, one row per cell; an invalid cell shows its reason instead of numbers. */
import type { ResultDocument } from "@sfbench/core";
import { fmtMs, fmtNumber, fmtPercent, fmtRate } from "../shared/format.ts";

export function RunResults({ doc }: { doc: ResultDocument }) {
  return (
    <div className="table-wrap">
      <table className="table" data-testid="run-results">
        <thead>
          <tr>
            <th>Workload</th><th>Distribution</th><th className="num">max 10 s avg req/s</th><th className="num">sustainable req/s</th>
            <th className="num">offered (80%)</th><th className="num">p50</th><th className="num">p95</th><th className="num">p99</th>
            <th className="num">errors</th><th className="num">req/s per core</th><th className="num">anomalies</th>
          </tr>
        </thead>
        <tbody>
          {doc.cells.map((c) => (
            <tr key={`${c.workload}/${c.distribution}`}>
              <td>{c.workload}</td>
              <td>{c.distribution}</td>
              {c.valid ? (
                <>
                  <td className="num">{fmtRate(c.maxThroughput?.maxMovingAvg10s)}</td>
                  <td className="num">{c.maxThroughput ? (c.maxThroughput.sustainableRate === null ? "none" : fmtRate(c.maxThroughput.sustainableRate)) : "—"}</td>
                  <td className="num">{fmtRate(c.stable?.offeredRate)}</td>
                  <td className="num">{fmtMs(c.stable?.latency.p50)}</td>
                  <td className="num">{fmtMs(c.stable?.latency.p95)}</td>
                  <td className="num">{fmtMs(c.stable?.latency.p99)}</td>
                  <td className="num">{fmtPercent(c.stable?.errorRate)}</td>
                  <td className="num">{fmtNumber(c.cost?.throughputPerCore)}</td>
                  <td className="num">{fmtNumber(c.anomalies?.total, 0)}</td>
                </>
              ) : (
                <td colSpan={9} className="invalid">invalid: {c.invalidReason}</td>
              )}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
