/**
 * The numbers of a completed run, one row per cell; an invalid cell shows its
 * reason instead of numbers. Every rate says what it counts (checkouts/s or
 * queries/s); the knee's resolution, why its search stopped, and whether the
 * leaderboard ranks the cell (a smoke test otherwise) are next to it.
 */
import { judgeCell, KNEE_STOP_TEXT, parseCpuList, type ResultDocument } from "@sfbench/core";
import { fmtKneeCores, fmtMs, fmtNumber, fmtPercent, fmtRateOf, fmtResolution, rateUnit } from "../shared/format.ts";

export function RunResults({ doc }: { doc: ResultDocument }) {
  const split = doc.environment.cpuSplit?.target;
  const given = split ? parseCpuList(split).length : undefined;
  return (
    <div className="table-wrap">
      <p className="muted" style={{ fontSize: 13 }}>
        Profile <strong>{doc.profile}</strong>. Sustainable = the highest offered rate with &gt;= 95% completed inside the step, &lt; 1% errors and p99 &lt; 1
        s; peak = the best 10 s moving average of successful requests inside a step (never below a step&apos;s achieved rate); knee = how much higher the first
        unsustainable step was. Ranked on the leaderboard only at 10% or better.
      </p>
      <table className="table" data-testid="run-results">
        <thead>
          <tr>
            <th>Workload</th>
            <th>Distribution</th>
            <th className="num">sustainable (offered)</th>
            <th className="num">knee</th>
            <th>knee search stopped</th>
            <th className="num">peak (successful)</th>
            <th className="num">stable: offered (80%)</th>
            <th className="num">p50</th>
            <th className="num">p95</th>
            <th className="num">p99</th>
            <th className="num">errors</th>
            <th className="num">successful per core</th>
            <th className="num" title="the cores the target's processes used in the steps at its knee, beside the cores it was given">
              CPU at the knee
            </th>
            <th className="num">anomalies</th>
          </tr>
        </thead>
        <tbody>
          {doc.cells.map((c) => {
            const mt = c.maxThroughput;
            // the verdict the leaderboard stored: the document's numbers judged again
            const rank = judgeCell(c).rank;
            return (
              <tr key={`${c.workload}/${c.distribution}`} data-ranked={rank.ok ? "true" : "false"}>
                <td>{c.workload}</td>
                <td>{c.distribution}</td>
                {c.valid ? (
                  <>
                    <td className="num">{mt ? (mt.sustainableRate === null ? "none" : fmtRateOf(mt.sustainableRate, c.workload)) : "—"}</td>
                    <td className="num" title={rank.ok ? "ranked on the leaderboard" : rank.reason}>
                      {fmtResolution(mt?.knee?.resolution)}
                      <br />
                      <span className={rank.ok ? "muted" : "invalid"}>{rank.ok ? "ranked" : rank.because === "knee" ? "smoke test" : "not ranked"}</span>
                    </td>
                    <td data-testid="knee-stop">
                      {mt?.knee
                        ? KNEE_STOP_TEXT[mt.knee.stoppedBecause]
                        : typeof c.parameters.kneeStoppedBecause === "string"
                          ? c.parameters.kneeStoppedBecause
                          : "not recorded"}
                    </td>
                    <td className="num">{fmtRateOf(mt?.maxMovingAvg10s, c.workload)}</td>
                    <td className="num">{fmtRateOf(c.stable?.offeredRate, c.workload)}</td>
                    <td className="num">{fmtMs(c.stable?.latency.p50)}</td>
                    <td className="num">{fmtMs(c.stable?.latency.p95)}</td>
                    <td className="num">{fmtMs(c.stable?.latency.p99)}</td>
                    <td className="num">{fmtPercent(c.stable?.errorRate)}</td>
                    <td className="num">{c.cost ? `${fmtNumber(c.cost.throughputPerCore)} ${rateUnit(c.workload)}` : "—"}</td>
                    <td className="num" data-testid="knee-cores">
                      {fmtKneeCores(mt?.kneeCores, given)}
                    </td>
                    <td className="num">
                      {fmtNumber(c.anomalies?.total, 0)}
                      {typeof c.parameters.auditReadsPerSecond === "number" ? (
                        <>
                          <br />
                          <span className="muted" data-testid="audit-pace">
                            audit paced at {c.parameters.auditReadsPerSecond} reads/s (target.json)
                          </span>
                        </>
                      ) : null}
                    </td>
                  </>
                ) : (
                  <td colSpan={12} className="invalid">
                    invalid: {c.invalidReason}
                  </td>
                )}
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
