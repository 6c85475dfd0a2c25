/**
 * The demo's live campaign sized to a time budget: the reference and as many
 * bundled systems as fit, n trials of checkout/uniform, each system's trial
 * time taken from the newest kept campaign that measured it on the same
 * profile (results/campaigns, real trials, though maybe of another machine:
 * the estimate says where it comes from). At the end, each system's ratio
 * to the reference measured here beside the kept one.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { cellStatistics, parseCampaign, type CampaignDocument, type CellStatistics, type TrialFigures } from "@sfbench/core";
import { fitBudget, keptTrialSeconds, type ReproducePlan } from "../../packages/cli/src/reproduce.ts";

/** The one cell a budgeted demo measures: the original benchmark's checkout, uniform. */
export const BUDGET_CELL = { workload: "checkout", distribution: "uniform" } as const;
const cellName = `${BUDGET_CELL.workload}/${BUDGET_CELL.distribution}`;

/** The kept campaigns that completed, newest first; a document that does not parse is left out. */
export function keptCampaigns(dir: string): CampaignDocument[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .sort()
    .reverse()
    .flatMap((f) => {
      const file = join(dir, f, "campaign.json");
      if (!existsSync(file)) return [];
      const parsed = parseCampaign(JSON.parse(readFileSync(file, "utf8")));
      return parsed.ok && parsed.campaign.status === "completed" ? [parsed.campaign] : [];
    });
}

/** Whether a kept campaign measured the budgeted cell, and only it, with this profile. */
export const measuresTheCell = (c: CampaignDocument, profile: string) =>
  c.profile === profile && c.experiment === "throughput" && c.cells.length === 1 && `${c.cells[0]!.workload}/${c.cells[0]!.distribution}` === cellName;

export interface DemoPlan extends Pick<ReproducePlan, "chosen" | "left" | "estimateS" | "repeatS"> {
  /** per system: its estimated trial time and the kept campaign it comes from; null without one (planned as UNKNOWN_FACTOR x the longest known) */
  times: Record<string, { seconds: number; from: CampaignDocument } | null>;
  /** the trial time each system was planned with */
  trialS: Record<string, number | null>;
}

/**
 * How much longer than the longest kept trial an unmeasured system's trial is
 * planned: dapr, measured by no kept campaign, took 5.0 min a trial (median of
 * 3, AMD EPYC, 2026-12-03) where the longest kept trial was 3 min.
 */
export const UNKNOWN_FACTOR = 2;

/** The systems of a budgeted demo: `reference` first, then the others that fit, fastest first (fitBudget). */
export function planDemo(o: {
  systems: readonly string[];
  reference: string;
  kept: readonly CampaignDocument[];
  profile: string;
  budgetS: number;
  trials: number;
}): DemoPlan {
  const times: DemoPlan["times"] = {};
  for (const system of o.systems) {
    times[system] = null;
    for (const c of o.kept) {
      if (!measuresTheCell(c, o.profile)) continue;
      const seconds = keptTrialSeconds(c, system);
      if (seconds !== null) {
        times[system] = { seconds, from: c };
        break;
      }
    }
  }
  // a system no kept campaign measured yet is planned longer than the longest one that was: a slow system's trial is the
  // longer one, its ramp waiting for its backlog to drain between steps and stepping down through failed confirmations
  const known = Object.values(times).flatMap((t) => (t ? [t.seconds] : []));
  const assumed = known.length ? UNKNOWN_FACTOR * Math.max(...known) : null;
  const trialS = Object.fromEntries(Object.entries(times).map(([s, t]) => [s, t?.seconds ?? assumed]));
  const fit = fitBudget({ reference: o.reference, trialS, budgetS: o.budgetS, trials: o.trials, from: "the kept campaigns" });
  return { ...fit, times, trialS };
}

/** Per system, the kept ratio to the reference on the cell: from the newest kept campaign that measured it beside the reference. */
export function keptRatios(kept: readonly CampaignDocument[], profile: string, reference: string): CellStatistics[] {
  const out: CellStatistics[] = [];
  for (const c of kept) {
    if (!measuresTheCell(c, profile) || c.reference !== reference) continue;
    for (const s of c.statistics) if (s.ratioToReference && !out.some((o) => o.target === s.target)) out.push(s);
  }
  return out;
}

/** One counted live trial: its system, round and the checkout/uniform knee its document gives (null: failed, invalid or none). */
export interface LiveTrial {
  system: string;
  round: number;
  document: {
    status: string;
    cells: Array<{ workload: string; distribution: string; valid: boolean; maxThroughput?: { sustainableRate: number | null } | null }>;
  } | null;
}

/** The live campaign's statistics on the cell, computed as a campaign document's are (core campaign-stats). */
export function liveStatistics(systems: readonly string[], reference: string, trials: readonly LiveTrial[]): CellStatistics[] {
  const figures: TrialFigures[] = trials.map((t) => {
    const cell = t.document?.status === "completed" ? t.document.cells.find((c) => `${c.workload}/${c.distribution}` === cellName) : undefined;
    return { target: t.system, round: t.round, busy: false, knees: { [cellName]: cell?.valid ? (cell.maxThroughput?.sustainableRate ?? null) : null } };
  });
  return cellStatistics({ targets: systems, cells: [BUDGET_CELL], trials: figures, reference });
}
