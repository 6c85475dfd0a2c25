/**
 * A system's two latest campaigns on one environment, profile and machine
 * class (the latest campaign's): per cell the median of each one's counted
 * trials (each trial once, by its last completed attempt) with its interval,
 * so the system page says whether it changed beyond noise.
 */
import type { Db } from "@sfbench/db";
import { RATE_KEYS, type RateKey } from "../../shared/leaderboard-params.ts";
import { trialFigure, type TrialFigure } from "../../shared/trial-figures.ts";

export interface CampaignFigures {
  campaignId: string;
  finishedAt: Date;
  trials: number;
  figures: Partial<Record<RateKey, TrialFigure>>;
}

export interface SystemCampaigns {
  environmentKind: string;
  nodes: number;
  profile: string;
  machineClass: string | null;
  latest: CampaignFigures;
  /** null: no earlier campaign on the same environment, profile and machine class */
  previous: CampaignFigures | null;
}

interface TrialRow {
  runId: string;
  campaignId: string;
  finishedAt: Date;
  environmentKind: string;
  nodes: number;
  profile: string;
  machineClass: string | null;
}

export async function getSystemCampaigns(db: Db, systemId: string): Promise<SystemCampaigns | null> {
  const trials = await db.$queryRaw<TrialRow[]>`
    SELECT DISTINCT ON (r."campaignId", r."environmentKind", r.nodes, r.profile, r."machineClass", r.trial)
      r.id AS "runId", r."campaignId", r."finishedAt", r."environmentKind"::text AS "environmentKind", r.nodes, r.profile::text AS profile, r."machineClass"
    FROM "Run" r
    WHERE r."systemId" = ${systemId}::uuid AND r.status = 'completed' AND r."campaignId" IS NOT NULL AND r.trial IS NOT NULL
    ORDER BY r."campaignId", r."environmentKind", r.nodes, r.profile, r."machineClass", r.trial, r.attempt DESC NULLS LAST`;
  if (!trials.length) return null;
  const newest = trials.reduce((a, b) => (b.finishedAt > a.finishedAt ? b : a));
  const same = trials.filter(
    (t) => t.environmentKind === newest.environmentKind && t.nodes === newest.nodes && t.profile === newest.profile && t.machineClass === newest.machineClass,
  );
  const byCampaign = new Map<string, TrialRow[]>();
  for (const t of same) (byCampaign.get(t.campaignId) ?? byCampaign.set(t.campaignId, []).get(t.campaignId)!).push(t);
  const ordered = [...byCampaign.values()]
    .map((ts) => ({ ts, finishedAt: new Date(Math.max(...ts.map((t) => t.finishedAt.getTime()))) }))
    .sort((a, b) => b.finishedAt.getTime() - a.finishedAt.getTime())
    .slice(0, 2);
  const runIds = ordered.flatMap((c) => c.ts.map((t) => t.runId));
  const cells = await db.cellResult.findMany({
    where: { runId: { in: runIds } },
    select: { runId: true, workload: true, distribution: true, ranked: true, sustainableRate: true },
  });
  const figuresOf = (ts: TrialRow[]): CampaignFigures["figures"] => {
    const out: CampaignFigures["figures"] = {};
    for (const key of RATE_KEYS) {
      const values = ts.map((t) => {
        const cell = cells.find((c) => c.runId === t.runId && `${c.workload}.${c.distribution}` === key);
        return { round: null, rate: cell?.ranked ? cell.sustainableRate : null };
      });
      const f = trialFigure(values);
      if (f) out[key] = f;
    }
    return out;
  };
  const [latest, previous] = ordered.map((c) => ({ campaignId: c.ts[0]!.campaignId, finishedAt: c.finishedAt, trials: c.ts.length, figures: figuresOf(c.ts) }));
  return {
    environmentKind: newest.environmentKind,
    nodes: newest.nodes,
    profile: newest.profile,
    machineClass: newest.machineClass,
    latest: latest!,
    previous: previous ?? null,
  };
}
