/** The system page's campaigns: the latest and the previous one's medians, and whether the system changed beyond noise. */
import type { SystemCampaigns } from "../server/queries/system-campaigns.ts";
import { campaignChange, fmtChange } from "../shared/campaign-change.ts";
import { fmtFigure } from "../shared/format-figure.ts";
import { fmtDate, fmtEnvironment, rateUnit } from "../shared/format.ts";
import { RATE_KEYS } from "../shared/leaderboard-params.ts";
import type { EnvironmentKind } from "@sfbench/db";

export function SystemCampaignsSection({ data }: { data: SystemCampaigns | null }) {
  if (!data) return null;
  const { latest, previous } = data;
  const keys = RATE_KEYS.filter((k) => latest.figures[k] || previous?.figures[k]);
  return (
    <section data-testid="system-campaigns">
      <h2>Campaigns</h2>
      <p className="muted">
        {`${fmtEnvironment(data.environmentKind as EnvironmentKind, data.nodes)}, ${data.profile} profile${data.machineClass ? `, ${data.machineClass}` : ""}. `}
        {`Latest campaign ${fmtDate(latest.finishedAt)} (${latest.trials} trials)`}
        {previous ? `; previous ${fmtDate(previous.finishedAt)} (${previous.trials} trials).` : "; no earlier campaign on this machine class and profile."}
        {" A change is claimed only when the intervals of the two campaigns' medians do not overlap."}
      </p>
      <table className="table">
        <thead>
          <tr>
            <th>Cell</th>
            <th className="num">latest: median [interval] (coverage), n</th>
            <th className="num">previous</th>
            <th>change</th>
          </tr>
        </thead>
        <tbody>
          {keys.map((k) => {
            const change = previous ? campaignChange(latest.figures[k], previous.figures[k]) : null;
            return (
              <tr key={k} data-cell={k} data-change={change?.kind}>
                <td>{`${k.replace(".", " ")} (${rateUnit(k.split(".")[0]!)})`}</td>
                <td className="num">{latest.figures[k] ? fmtFigure(latest.figures[k]) : "—"}</td>
                <td className="num">{previous?.figures[k] ? fmtFigure(previous.figures[k]) : "—"}</td>
                <td>{change ? fmtChange(change) : "—"}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </section>
  );
}
