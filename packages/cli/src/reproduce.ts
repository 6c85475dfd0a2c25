/**
 * Reproducing a kept campaign on this machine (`sfbench reproduce`): which of
 * its targets fit a time budget, estimated from the kept trials' own wall
 * times, and, once this machine's campaign is in, each target's ratio to the
 * reference here beside the kept one. Absolute rates move with the host (the
 * same AMD machine gave node-postgres 228-294/s one afternoon and 174-191/s
 * that night); the ratio to the reference measured in the same rounds moves
 * much less, so it is what a reproduction compares.
 */
import { median, type Interval, type Ratio } from "@sfbench/core/stats";
import type { CampaignDocument, CellStatistics } from "@sfbench/core";

export interface ReproducePlan {
  reference: string;
  trials: number;
  budgetS: number;
  /** per target of the kept campaign: the median wall time of its counted trials there (null: the kept trials do not say) */
  trialS: Record<string, number | null>;
  /** the reference first, then the others that fit, fastest first */
  chosen: string[];
  /** the kept campaign's targets left out, and why */
  left: { target: string; why: string }[];
  /** trials x the chosen targets' trial times, plus repeatS */
  estimateS: number;
  /** the room kept for one busy trial's repeat: the longest chosen trial */
  repeatS: number;
}

/**
 * What a trial costs besides its measurement in a kept campaign (starting
 * the target, verifying it, stopping it): the campaign's wall time less its
 * trials' measured ones, per trial attempt.
 */
export function keptOverheadSeconds(doc: CampaignDocument): number {
  const measured = doc.trials.reduce((s, t) => s + (t.noise?.wallS ?? 0), 0);
  const wall = (Date.parse(doc.finishedAt) - Date.parse(doc.startedAt)) / 1000;
  return doc.trials.length ? Math.max(0, (wall - measured) / doc.trials.length) : 0;
}

/** A target's trial time in a kept campaign: the median measured wall time of its counted trials (their noise record), plus the campaign's overhead per trial. */
export function keptTrialSeconds(doc: CampaignDocument, target: string): number | null {
  const walls = doc.trials.filter((t) => t.target === target && t.counted && t.noise?.wallS !== undefined).map((t) => t.noise!.wallS);
  return walls.length ? median(walls) + keptOverheadSeconds(doc) : null;
}

/** Which targets fit a budget: the reference first (an error naming what it needs when it alone does not fit), then the others fastest first. */
export function fitBudget(o: {
  reference: string;
  trialS: Record<string, number | null>;
  budgetS: number;
  trials: number;
  /** where the times come from, for the error */
  from: string;
}): Pick<ReproducePlan, "chosen" | "left" | "estimateS" | "repeatS"> {
  const refS = o.trialS[o.reference];
  if (refS === null || refS === undefined) throw new Error(`${o.from} keeps no trial time of the reference ${o.reference}: nothing to plan with`);
  // a trial taken while the machine was busy runs once more at the end of the queue, and on a shared machine one in a
  // campaign is common: the plan keeps room for one repeat of its longest trial, so that it does not end past the budget
  const need = (o.trials + 1) * refS;
  if (need > o.budgetS)
    throw new Error(
      `a budget of ${minutes(o.budgetS)} is too small: the reference ${o.reference} alone needs about ${minutes(need)} ` +
        `(${o.trials} trials of ${minutes(refS)} each in ${o.from}, and room for one busy trial's repeat)`,
    );
  const chosen = [o.reference];
  const left: ReproducePlan["left"] = [];
  let trialsS = o.trials * refS;
  let repeatS = refS;
  const others = Object.keys(o.trialS)
    .filter((n) => n !== o.reference)
    .sort((a, b) => (o.trialS[a] ?? Infinity) - (o.trialS[b] ?? Infinity) || a.localeCompare(b));
  for (const target of others) {
    const s = o.trialS[target];
    if (s === null || s === undefined) left.push({ target, why: `no counted trial time of it in ${o.from}` });
    else if (trialsS + o.trials * s + Math.max(repeatS, s) > o.budgetS)
      left.push({ target, why: `${o.trials} trials of about ${minutes(s)} do not fit the ${minutes(o.budgetS - trialsS - repeatS)} left` });
    else {
      chosen.push(target);
      trialsS += o.trials * s;
      repeatS = Math.max(repeatS, s);
    }
  }
  return { chosen, left, estimateS: trialsS + repeatS, repeatS };
}

/**
 * Which targets of `doc` a reproduction of `trials` rounds runs within
 * `budgetS`: the reference (without it there is no ratio to compare, so a
 * budget it does not fit is an error naming what it needs), then as many of
 * the others as fit, fastest first so that the most systems get a ratio.
 */
export function planReproduction(doc: CampaignDocument, opts: { budgetS: number; trials: number }): ReproducePlan {
  const reference = doc.reference;
  if (!reference) throw new Error(`campaign ${doc.campaignId} has no reference target: its systems have no ratio to reproduce`);
  const trialS = Object.fromEntries(doc.targets.map((t) => [t.name, keptTrialSeconds(doc, t.name)]));
  const fit = fitBudget({ reference, trialS, budgetS: opts.budgetS, trials: opts.trials, from: "the kept campaign" });
  return { reference, trials: opts.trials, budgetS: opts.budgetS, trialS, ...fit };
}

export interface ReproducedRatio {
  target: string;
  cell: string;
  kept: Ratio | null;
  here: Ratio | null;
  /** this machine's ratio inside the kept interval; null when either side has no ratio with an interval */
  holds: boolean | null;
}

const within = (x: number, i: Interval) => x >= i.low && x <= i.high;

/** Per target and cell of `here` (the reference left out): the kept ratio, this machine's, and whether the kept interval holds here. */
export function compareRatios(kept: CampaignDocument, here: CampaignDocument): ReproducedRatio[] {
  return compareStatistics(kept.statistics, here.statistics, here.reference);
}

/** compareRatios over statistics: `kept` may gather several campaigns' (the first of a target and cell is taken). */
export function compareStatistics(kept: readonly CellStatistics[], here: readonly CellStatistics[], reference: string | undefined): ReproducedRatio[] {
  return here
    .filter((s) => s.target !== reference)
    .map((s) => {
      const k = kept.find(
        (x) => x.target === s.target && x.workload === s.workload && x.distribution === s.distribution && x.ratioToReference,
      )?.ratioToReference;
      const h = s.ratioToReference;
      return {
        target: s.target,
        cell: `${s.workload}/${s.distribution}`,
        kept: k ?? null,
        here: h ?? null,
        holds: k?.interval && h ? within(h.ratio, k.interval) : null,
      };
    });
}

export const minutes = (s: number) => (s >= 90 ? `${Math.round(s / 60)} min` : `${Math.round(s)} s`);
const ratioText = (r: Ratio | null) =>
  r ? `${r.ratio.toFixed(2)}x${r.interval ? ` (${r.interval.low.toFixed(2)} .. ${r.interval.high.toFixed(2)})` : ""}, n=${r.n}` : "-";

/** What a reproduction will run, said before it starts. */
export function planText(doc: CampaignDocument, plan: ReproducePlan): string {
  const lines = [
    `reproducing campaign ${doc.campaignId.slice(0, 8)} (${doc.startedAt.slice(0, 10)}, ${doc.machine.cpuModel}, ${doc.machine.cores} cores; profile ${doc.profile}; ` +
      `${doc.cells.map((c) => `${c.workload}/${c.distribution}`).join(", ")})`,
    `budget ${minutes(plan.budgetS)}: ${plan.trials} trials each of ${plan.chosen.join(", ")}, about ${minutes(plan.estimateS)} from the kept trials' times (${minutes(plan.repeatS)} of it room for one busy trial's repeat)`,
    ...plan.chosen.map((t) => `  ${t.padEnd(18)} about ${minutes(plan.trialS[t]!)} a trial${t === plan.reference ? " (the reference)" : ""}`),
    ...plan.left.map((l) => `  ${l.target.padEnd(18)} left out: ${l.why}`),
  ];
  return lines.join("\n") + "\n";
}

/** This machine's ratios beside the kept ones; `kept` names where the kept ones come from (a campaign, or "kept campaigns"). */
export function comparisonText(kept: CampaignDocument | { reference: string; label: string }, rows: ReproducedRatio[]): string {
  const label = "label" in kept ? kept.label : `${kept.startedAt.slice(0, 10)}, ${kept.machine.cpuModel}`;
  const head = ["target", "cell", `kept (${label})`, "here", "kept interval holds here"];
  const body = rows.map((r) => [
    r.target,
    r.cell,
    ratioText(r.kept),
    ratioText(r.here),
    r.holds === null ? "-" : r.holds ? "yes" : "no: this machine orders it differently, or the kept campaign was lucky",
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((row) => row[i]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i]!))
      .join("  ")
      .trimEnd();
  return [`ratios to ${kept.reference ?? "the reference"}, each measured in the same rounds:`, line(head), ...body.map(line)].join("\n") + "\n";
}

/** "30m", "90s", "1h", "1h30m", or a number of minutes; seconds, or undefined when it does not read. */
export function parseBudget(text: string): number | undefined {
  if (/^\d+(\.\d+)?$/.test(text)) return Number(text) * 60;
  const m = /^(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?$/.exec(text);
  if (!m || !text) return undefined;
  return Number(m[1] ?? 0) * 3600 + Number(m[2] ?? 0) * 60 + Number(m[3] ?? 0);
}
