/**
 * What a measurement must show to count, defined once: the engine judges its
 * steps and stable phase with these rules while it runs, and the import (and
 * so the board) judges a stored document with the same rules again from its
 * numbers, never trusting the flags it carries.
 *
 * A step is sustainable when (SPEC 5) it completed >= 95% of its offered rate,
 * had < 1% errors and a p99 under 1 s. A stable phase is held to the same
 * bound: it measures latency at a rate the target sustains, so a stable phase
 * that could not keep up, failed >= 1% of its requests or answered slower
 * than a step may is no stable-load figure. A generator that dropped
 * iterations while the target answered in time, or that ran its cores above
 * 90%, measured itself: the cell is flagged wherever that happened.
 */
import { rankable, type Cell, type Cost, type Rankable, type StableLoad, type StepResult } from "./result.ts";

export interface SustainableCriteria {
  /** completed (successful, plus planned rejections where the workload audits them) / offered must be at least this */
  minCompletedShare: number;
  /** errors / requests must be below this */
  maxErrorRate: number;
  /** p99 must be below this */
  maxP99Ms: number;
}

export const SUSTAINABLE: SustainableCriteria = { minCompletedShare: 0.95, maxErrorRate: 0.01, maxP99Ms: 1000 };

export interface GeneratorLimits {
  maxDroppedShare: number;
  maxCpuShare: number;
}

export const GENERATOR_LIMITS: GeneratorLimits = { maxDroppedShare: 0.01, maxCpuShare: 0.9 };

export interface StepLike {
  scenario: string;
  offeredRate: number | null;
  completedShare: number | null;
  /** the share completed inside the step's measured window; when present it is what is judged */
  window?: { completedShare: number | null };
  errorRate: number;
  latency: { count: number; p99: number };
}

export interface StepVerdict {
  scenario: string;
  offeredRate: number | null;
  sustainable: boolean;
  /** why not; empty when sustainable */
  reasons: string[];
}

const pct = (x: number): string => `${(x * 100).toFixed(2).replace(/\.?0+$/, "")}%`;

/** The share a step is judged on: inside its measured window when it has one. */
const judgedShare = (step: StepLike): number | null => (step.window ? step.window.completedShare : step.completedShare);

/** Judges one step against the criteria. */
export function judgeStep(step: StepLike, criteria: SustainableCriteria = SUSTAINABLE): StepVerdict {
  const reasons: string[] = [];
  const completed = judgedShare(step);
  const within = step.window ? " within the step" : "";
  if (step.offeredRate === null || completed === null) reasons.push("offered rate unknown");
  else if (completed < criteria.minCompletedShare)
    reasons.push(`completed ${pct(completed)} of the offered rate${within} (needs >= ${pct(criteria.minCompletedShare)})`);
  if (!(step.errorRate < criteria.maxErrorRate)) reasons.push(`error rate ${pct(step.errorRate)} (needs < ${pct(criteria.maxErrorRate)})`);
  if (step.latency.count === 0) reasons.push("no answered requests, so no p99");
  else if (!(step.latency.p99 < criteria.maxP99Ms)) reasons.push(`p99 ${step.latency.p99} ms (needs < ${criteria.maxP99Ms} ms)`);
  return { scenario: step.scenario, offeredRate: step.offeredRate, sustainable: reasons.length === 0, reasons };
}

/**
 * A narrow failure: a step that missed only its served share, by at most 10
 * points, while the target answered fast (p99 under half the bound) and
 * without errors. A stall of a quarter second at the end of a 5 s window
 * costs 5% of it, so such a step says more about when the stall fell than
 * about the rate; the search runs it again at once and the repeat's verdict
 * is the rate's. An overloaded target shows its queue in the latency or
 * falls further short, and fails again.
 */
export function narrowFailure(step: StepLike, criteria: SustainableCriteria = SUSTAINABLE): boolean {
  const completed = judgedShare(step);
  return (
    step.offeredRate !== null &&
    completed !== null &&
    completed < criteria.minCompletedShare &&
    completed >= criteria.minCompletedShare - 0.1 &&
    step.errorRate < criteria.maxErrorRate &&
    step.latency.count > 0 &&
    step.latency.p99 < criteria.maxP99Ms / 2
  );
}

/**
 * Which stored steps a repeat replaced: marked `repeated`, a narrow failure
 * by their own numbers, and followed by a step at the same rate. A mark the
 * numbers do not bear out replaces nothing, so a document cannot gain a
 * knee by marking its failures.
 */
export function replacedByRepeat(steps: readonly (StepLike & { repeated?: boolean })[]): boolean[] {
  return steps.map((s, i) => s.repeated === true && narrowFailure(s) && steps[i + 1]?.offeredRate === s.offeredRate);
}

export interface Sustainable {
  /** offered rate of the highest sustainable step, or null */
  rate: number | null;
  scenario: string | null;
  verdicts: StepVerdict[];
}

/**
 * The highest offered rate among the steps that meet all criteria (a step
 * passes on its own: a failing lower step does not disqualify a higher one),
 * and the verdict on every step.
 */
export function sustainableRate(steps: readonly StepLike[], criteria: Partial<SustainableCriteria> = {}): Sustainable {
  const c = { ...SUSTAINABLE, ...criteria };
  const verdicts = steps.map((s) => judgeStep(s, c));
  let best: StepVerdict | null = null;
  for (const v of verdicts) if (v.sustainable && (best === null || v.offeredRate! > best.offeredRate!)) best = v;
  return { rate: best?.offeredRate ?? null, scenario: best?.scenario ?? null, verdicts };
}

export interface GeneratorLoad {
  droppedIterations: number;
  /** completed iterations */
  iterations: number;
  /** share (0..1) of the generator's cores it kept busy, when measured */
  generatorCpuShare?: number;
  /**
   * whether the target answered within the step's latency bound (p99 below
   * SUSTAINABLE.maxP99Ms) and served what k6 did offer it. Dropped iterations
   * are the generator's fault only then: an overloaded target holds k6's VUs
   * until the pool runs dry, which is the target's knee, not the generator's.
   * Absent: dropped iterations count.
   */
  targetAnsweredInTime?: boolean;
}

/** The generator is saturated when it dropped more than 1% of iterations (while the target answered in time) or ran its cores above 90%. */
export function generatorSaturated(
  load: GeneratorLoad,
  limits: Partial<GeneratorLimits> = {},
): { saturated: boolean; droppedShare: number; reasons: string[] } {
  const l = { ...GENERATOR_LIMITS, ...limits };
  const total = load.iterations + load.droppedIterations;
  const droppedShare = total === 0 ? 0 : load.droppedIterations / total;
  const reasons: string[] = [];
  if (droppedShare > l.maxDroppedShare && load.targetAnsweredInTime !== false)
    reasons.push(`${pct(droppedShare)} of iterations were dropped (limit ${pct(l.maxDroppedShare)}): k6 ran out of VUs`);
  if (load.generatorCpuShare !== undefined && load.generatorCpuShare > l.maxCpuShare)
    reasons.push(`load generator CPU at ${pct(load.generatorCpuShare)} (limit ${pct(l.maxCpuShare)})`);
  return { saturated: reasons.length > 0, droppedShare, reasons };
}

/** Why a stable phase is no stable-load figure; empty when it is one. */
export function stableReasons(
  stable: Pick<StableLoad, "offeredRate" | "completedShare" | "errorRate" | "latency">,
  criteria: SustainableCriteria = SUSTAINABLE,
): string[] {
  const reasons: string[] = [];
  const kept = stable.completedShare;
  if (kept !== undefined && kept < criteria.minCompletedShare)
    reasons.push(
      `stable phase: offered ${stable.offeredRate}/s, completed ${(kept * stable.offeredRate).toFixed(1)}/s (${(kept * 100).toFixed(1)}%) within the phase: it did not achieve its offered rate (needs >= ${pct(criteria.minCompletedShare)}), so its latency is not a stable-load figure`,
    );
  if (!(stable.errorRate < criteria.maxErrorRate))
    reasons.push(`stable phase: error rate ${pct(stable.errorRate)} (needs < ${pct(criteria.maxErrorRate)}, as a sustainable step)`);
  if (stable.latency.count === 0) reasons.push("stable phase: no answered requests, so no latency");
  else if (!(stable.latency.p99 < criteria.maxP99Ms))
    reasons.push(`stable phase: p99 ${stable.latency.p99} ms (needs < ${criteria.maxP99Ms} ms, as a sustainable step)`);
  return reasons;
}

export interface KneeBracket {
  sustainableRate: number | null;
  firstUnsustainableRate: number | null;
  resolution: number | null;
}

/** The relative gap between the last sustainable and the first unsustainable rate; null when the knee is not bracketed. */
export function kneeResolution(good: number | null, bad: number | null): number | null {
  if (good === null || bad === null || !(good > 0) || !(bad > good)) return null;
  return (bad - good) / good;
}

type JudgedStep = { offeredRate: number | null; sustainable: boolean; phase?: StepResult["phase"]; replaced?: boolean };

/**
 * The knee as a set of judged steps brackets it: the highest sustainable rate
 * and the lowest unsustainable rate above it. Warm-up steps are not judged.
 * When the knee was confirmed, a rate is sustainable only if it was confirmed
 * (repeated in confirm steps) and every step at it held: the search's
 * candidate that failed its repeat is not the knee. A narrow failure the
 * search ran again at once (`replaced`) counts as its repeat says.
 */
export function kneeBracket(all: readonly JudgedStep[]): KneeBracket {
  const steps = all.filter((s) => s.phase !== "warmup" && s.offeredRate !== null && !s.replaced);
  if (steps.some((s) => s.phase === "confirm")) {
    const rates = [...new Set(steps.map((s) => s.offeredRate!))];
    const held = (r: number) => steps.some((s) => s.offeredRate === r && s.phase === "confirm") && steps.every((s) => s.offeredRate !== r || s.sustainable);
    const confirmed = rates.filter(held);
    const sustainable = confirmed.length ? Math.max(...confirmed) : null;
    const failed = rates.filter((r) => steps.some((s) => s.offeredRate === r && !s.sustainable) && (sustainable === null || r > sustainable));
    const firstUnsustainableRate = failed.length ? Math.min(...failed) : null;
    return { sustainableRate: sustainable, firstUnsustainableRate, resolution: kneeResolution(sustainable, firstUnsustainableRate) };
  }
  const good = steps.filter((s) => s.sustainable && s.offeredRate !== null).map((s) => s.offeredRate!);
  const sustainable = good.length ? Math.max(...good) : null;
  const above = steps
    .filter((s) => !s.sustainable && s.offeredRate !== null && (sustainable === null || s.offeredRate > sustainable))
    .map((s) => s.offeredRate!);
  const firstUnsustainableRate = above.length ? Math.min(...above) : null;
  return { sustainableRate: sustainable, firstUnsustainableRate, resolution: kneeResolution(sustainable, firstUnsustainableRate) };
}

/**
 * Stored steps as the knee bracket reads them: each judged from its numbers,
 * with the narrow failures a repeat replaced. The engine brackets its knee
 * from the steps it stores with this, and the board's recheck does the same.
 */
export function judgedSteps(steps: readonly StepResult[]): JudgedStep[] {
  const replaced = replacedByRepeat(steps);
  return steps.map((s, i) => ({ offeredRate: s.offeredRate, sustainable: judgeStep(s).sustainable, phase: s.phase, replaced: replaced[i] }));
}

export interface CellRecheck {
  /** reasons the cell's own numbers give for not being valid (empty: none) */
  reasons: string[];
  /** the knee as the stored steps bracket it (null fields when the cell has no ramp) */
  knee: KneeBracket;
}

/**
 * Judges a stored cell again from its numbers: every step against the
 * criteria, the knee bracketed from those verdicts, the stable phase, and the
 * generator's share of its cores. A cell is only as valid as this says and
 * its own flag says: a document can lose validity here, never gain it.
 */
export function recheckCell(cell: Pick<Cell, "maxThroughput" | "stable" | "cost">): CellRecheck {
  const reasons: string[] = [];
  const steps: readonly StepResult[] = cell.maxThroughput?.steps ?? [];
  const knee = cell.maxThroughput ? kneeBracket(judgedSteps(steps)) : { sustainableRate: null, firstUnsustainableRate: null, resolution: null };
  const claimed = cell.maxThroughput?.sustainableRate ?? null;
  if (cell.maxThroughput && claimed !== knee.sustainableRate)
    reasons.push(`the document claims a sustainable rate of ${claimed ?? "none"}/s, its steps show ${knee.sustainableRate ?? "none"}/s`);
  if (cell.stable) reasons.push(...stableReasons(cell.stable));
  const cost: Cost | undefined = cell.cost;
  if (cost && cost.generatorCpuShare > GENERATOR_LIMITS.maxCpuShare)
    reasons.push(`stable phase: load generator CPU at ${pct(cost.generatorCpuShare)} (limit ${pct(GENERATOR_LIMITS.maxCpuShare)})`);
  return { reasons, knee };
}

export interface JudgedCell {
  valid: boolean;
  invalidReason: string | null;
  /** the highest sustainable rate the stored steps show (null without a ramp or without a sustainable step) */
  sustainableRate: number | null;
  kneeResolution: number | null;
  rank: Rankable;
}

/**
 * A cell as the board may show it: its numbers judged again (recheckCell), so
 * that a document can lose validity or rank, never gain it. The knee is
 * bracketed from the stored steps' verdicts, not taken from the document's
 * claim, and rankability follows from the rechecked cell. The import stores
 * this; the run page shows it.
 */
export function judgeCell(cell: Pick<Cell, "valid" | "invalidReason" | "maxThroughput" | "stable" | "cost" | "anomalies">): JudgedCell {
  const recheck = recheckCell(cell);
  const valid = cell.valid && recheck.reasons.length === 0;
  const invalidReason = [...(cell.valid ? [] : [cell.invalidReason ?? "invalid"]), ...recheck.reasons].join("; ") || null;
  const max = cell.maxThroughput;
  const knee = max?.knee ? { ...max.knee, firstUnsustainableRate: recheck.knee.firstUnsustainableRate, resolution: recheck.knee.resolution } : undefined;
  const rank = rankable({
    valid,
    anomalies: cell.anomalies,
    maxThroughput: max ? { ...max, sustainableRate: recheck.knee.sustainableRate, ...(knee ? { knee } : {}) } : undefined,
  });
  return { valid, invalidReason, sustainableRate: max ? recheck.knee.sustainableRate : null, kneeResolution: knee ? knee.resolution : null, rank };
}
