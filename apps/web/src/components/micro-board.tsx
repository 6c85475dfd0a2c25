/**
 * The leaderboard's micro view: per system and environment its latest completed
 * run with microbenchmarks (docs/spec.md 8) and their headline figures; a target
 * that does not declare the micro routes shows "not supported" with the reason.
 * Every figure comes from that stored run; failed and interrupted runs never appear.
 */
import type { MicroRow } from "../server/queries/micro.ts";
import { fmtDate, fmtEnvironment, fmtMs, fmtNumber, fmtRate } from "../shared/format.ts";
import { HEADLINE_DIVIDE_ITEMS, HEADLINE_PINGPONG } from "../shared/micro-figures.ts";

export function MicroBoard({ rows, hiddenTuned = 0, showTunedHref }: { rows: MicroRow[]; hiddenTuned?: number; showTunedHref?: string }) {
  return (
    <div className="table-wrap">
      {hiddenTuned > 0 && showTunedHref ? (
        <p className="muted" data-testid="micro-tuned-hidden">
          {`${hiddenTuned} row${hiddenTuned === 1 ? "" : "s"} of tuned implementations hidden (optimised for this benchmark): `}
          <a href={showTunedHref}>show tuned implementations</a>
        </p>
      ) : null}
      <p className="muted" style={{ fontSize: 13 }}>
        Overhead = end-to-end time minus the time the handler reported, p50 of <code>empty</code> at the lowest measured rate; max rate = the highest
        sustainable rate of <code>empty</code>; ping-pong = round trips per second and p99 round trip for {HEADLINE_PINGPONG.pairs} pair of{" "}
        {HEADLINE_PINGPONG.bytes} B messages; divide = time to sort {HEADLINE_DIVIDE_ITEMS.toLocaleString("en-US")} items across entities; Big = messages per
        second at the largest entity count measured.
      </p>
      <table className="table" data-testid="micro-leaderboard">
        <thead>
          <tr>
            <th>System</th>
            <th>Environment</th>
            <th className="num">empty overhead p50</th>
            <th className="num">empty max rate</th>
            <th className="num">ping-pong round trips/s</th>
            <th className="num">ping-pong p99</th>
            <th className="num">divide {HEADLINE_DIVIDE_ITEMS / 1000}k</th>
            <th className="num">Big messages/s</th>
            <th>Run</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => {
            const f = r.figures;
            return (
              <tr key={r.runId} data-system={r.slug}>
                <td>
                  <a href={`/systems/${encodeURIComponent(r.slug)}`}>{r.name}</a>
                </td>
                <td>{fmtEnvironment(r.environmentKind, r.nodes)}</td>
                {f.supported ? (
                  <>
                    <td className="num">
                      {fmtMs(f.emptyOverheadP50Ms)}
                      {f.emptyOverheadRate !== null ? <span className="muted"> @ {fmtRate(f.emptyOverheadRate)}/s</span> : null}
                    </td>
                    <td className="num">{f.emptyMaxRate === null ? "—" : `${fmtRate(f.emptyMaxRate)}/s`}</td>
                    <td className="num">{fmtNumber(f.pingpongPerS, 0)}</td>
                    <td className="num">{fmtMs(f.pingpongP99Ms)}</td>
                    <td className="num">{fmtMs(f.divideMs)}</td>
                    <td className="num">
                      {fmtNumber(f.bigPerS, 0)}
                      {f.bigEntities !== null ? <span className="muted"> ({fmtNumber(f.bigEntities, 0)} entities)</span> : null}
                    </td>
                  </>
                ) : (
                  <td colSpan={6} className="muted" data-testid="micro-not-supported">
                    micro: not supported: {f.reason}
                  </td>
                )}
                <td>
                  <a href={`/runs/${r.runId}`} className="muted">{`${r.slug} ${r.version}`}</a>
                  <br />
                  <span className="muted">
                    {r.profile} · {fmtDate(r.finishedAt)}
                  </span>
                </td>
              </tr>
            );
          })}
          {rows.length === 0 ? (
            <tr>
              <td colSpan={9} className="muted">
                No completed run with microbenchmarks yet.
              </td>
            </tr>
          ) : null}
        </tbody>
      </table>
    </div>
  );
}
