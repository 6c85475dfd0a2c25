/**
 * The system page's microbenchmarks and resilience sections: the latest micro
 * figures per environment (or "not supported" with the reason), the latest run
 * with resilience results drawn as on its run page, and the experiments the
 * target's manifest cannot do, listed as "not supported" with the reason.
 */
import Link from "next/link";
import { ResilienceCharts, resilienceRunData } from "../charts/index.ts";
import { systemColor } from "../charts/data/palette.ts";
import type { SystemExperiments } from "../server/queries/system-experiments.ts";
import { fmtDate } from "../shared/format.ts";
import { MicroBoard } from "./micro-board.tsx";

export function SystemExperimentsSections({ data }: { data: SystemExperiments }) {
  const res = data.resilience;
  const view = res ? resilienceRunData(res.doc) : null;
  return (
    <>
      <h2>Microbenchmarks</h2>
      {data.micro.length === 0 ? (
        <p className="muted" data-testid="system-micro-none">
          No completed run has measured the microbenchmarks yet.
        </p>
      ) : (
        <div data-testid="system-micro">
          <MicroBoard rows={data.micro} />
        </div>
      )}

      <h2>Resilience</h2>
      {data.unsupported ? (
        data.unsupported.length ? (
          <ul data-testid="system-experiments-unsupported">
            {data.unsupported.map((u) => (
              <li key={u.experiment}>
                <strong>{u.experiment}</strong>: not supported: {u.reason}
              </li>
            ))}
          </ul>
        ) : (
          <p className="muted" data-testid="system-experiments-unsupported">
            The target.json allows every resilience experiment (fault, recovery, scale-up, scalability).
          </p>
        )
      ) : (
        <p className="muted">The target.json of the newest version is not known, so which experiments it supports is not known.</p>
      )}
      {res && view ? (
        <div data-testid="system-resilience">
          <p className="muted">
            From <Link href={`/runs/${res.runId}`}>run {res.runId.slice(0, 8)}</Link> ({res.doc.target.name} {res.doc.target.version}, {res.doc.profile}{" "}
            profile, {fmtDate(res.finishedAt)}).
          </p>
          <ResilienceCharts data={view} system={{ key: "s0", slug: res.doc.target.system, name: res.doc.target.name, color: systemColor(0) }} />
        </div>
      ) : (
        <p className="muted" data-testid="system-resilience-none">
          No completed run has resilience results yet.
        </p>
      )}
    </>
  );
}
