/**
 * One pass over a k6 CSV file: per-second series, per-step results, latency
 * histograms of the measured request (overall and by tag) and a summary of
 * the setup requests.
 *
 * Conventions (the k6 scripts follow them):
 * - every request carries an `op` tag; the measured one is `checkout` or
 *   `freq-items`, the others (create-user, add-to-cart, ...) are setup;
 * - each arrival-rate step is its own scenario `step_<i>`, offered at
 *   stepRates[i] iterations per second, one measured request per iteration;
 * - a request belongs to the step (scenario) that started its iteration, even
 *   when it ends after the step; a step's rates divide its request counts by
 *   the step's duration (given, or estimated from the iteration start times
 *   and rounded to whole seconds).
 */
import { SUSTAINABLE, type SeriesPoint } from "@sfbench/core";
import { streamK6Csv, type K6Sample } from "./k6-csv.ts";
import { OutcomeCounter, type OutcomeAggregate, type Rejections } from "./outcome.ts";
import { SeriesBuilder, type OfferedWindow } from "./series.ts";

/** the measured request: a workload's (checkout, freq-items) or a microbenchmark route's (micro-empty, ...) */
export type MeasuredOp = "checkout" | "freq-items" | "micro-empty" | "micro-math" | "micro-sleep" | "micro-io";

/** Tags (or tag pairs) the measured request's latency is broken down by. */
export const DEFAULT_GROUP_BY: Record<MeasuredOp, string[][]> = {
  checkout: [["cart_size"]],
  "freq-items": [["shape"], ["top", "depth"]],
  "micro-empty": [],
  "micro-math": [],
  "micro-sleep": [],
  "micro-io": [],
};

export interface AggregateOptions {
  op: MeasuredOp;
  /** offered iterations per second of scenario step_<i> */
  stepRates: readonly number[];
  /** configured duration of step_<i>, seconds; estimated from the data (whole seconds) when absent */
  stepDurationsS?: readonly number[];
  /** default DEFAULT_GROUP_BY[op]; a group of several tags is keyed "a/b" with values "x/y" */
  groupBy?: readonly (readonly string[])[];
  /** what a 409 is (core's REJECTIONS for the workload); default "failure": only a workload that plans 409s counts them as completed */
  rejections?: Rejections;
  /** a request answered slower than this does not count as served in its step's window (default: the p99 bound of a sustainable step, core SUSTAINABLE) */
  latencyBoundMs?: number;
}

export interface StepAggregate extends OutcomeAggregate {
  scenario: string;
  /** i of step_<i>; null for a scenario of another name */
  index: number | null;
  offeredRate: number | null;
  /** seconds from the run's start */
  startS: number;
  durationS: number;
  durationEstimated: boolean;
  iterations: number;
  droppedIterations: number;
  /** dropped / (completed iterations + dropped) */
  droppedShare: number;
  /** mean duration of the step's completed iterations (setup requests and the measured one), seconds; null without iteration samples */
  meanIterationS: number | null;
  /** successful per second */
  achievedRate: number;
  /** (successful + rejected) per second */
  completedRate: number;
  /** completedRate / offeredRate; null when the offered rate is unknown */
  completedShare: number | null;
  /** errors / requests (0 without requests) */
  errorRate: number;
  /** the same rates counted inside the step's measured window only (see measuredWindow) */
  window: StepWindow;
}

/**
 * A step's measured window: from WARMUP after its first iteration started to
 * the end of its configured duration. It is judged two ways, and the lower
 * share counts:
 * - by the time requests ended: the rate the target served, so an overloaded
 *   step cannot catch up during k6's graceful stop and still look as if it
 *   kept up (a queue that grows slowly shows here first);
 * - by the time requests began: of what the step scheduled in the window, how
 *   much was answered, successfully, within the step's latency bound (a
 *   request started is the iteration's scheduled start plus its setup
 *   requests), so a step's verdict does not follow the tail of the latencies
 *   of requests that happened to end inside it.
 * The warm-up leaves out the time in which the first iterations make their
 * setup requests before the measured one.
 */
export interface StepWindow {
  /** seconds */
  durationS: number;
  successful: number;
  /** successful + rejected (planned rollbacks count) */
  completed: number;
  /** successful per second */
  achievedRate: number;
  /** completed per second */
  completedRate: number;
  /** the share that is judged: the lower of the served share (completedRate / offered) and scheduledShare; null when the offered rate is unknown */
  completedShare: number | null;
  /** requests begun in the window and answered successfully within the latency bound, per second / offered rate; absent when not measured */
  scheduledShare?: number | null;
  /** the highest 10 s moving average of successful per second in the window (its mean when the window is shorter) */
  peakRate: number;
  peakWindowS: number;
}

export const PEAK_WINDOW_S = 10;

/** Seconds left out at the start of a step: 1 s, or a quarter of a step shorter than 4 s. */
export function warmupS(durationS: number): number {
  return Math.min(1, durationS / 4);
}

/** The highest number of the sorted times that fall in one interval of length len inside [from, to]. */
export function densest(sorted: readonly number[], from: number, to: number, len: number): number {
  const inside = sorted.filter((t) => t >= from && t <= to);
  // the best interval can be taken to start at a time, or to be the last one, [to - len, to]
  let best = inside.filter((t) => t >= to - len).length;
  let j = 0;
  for (let i = 0; i < inside.length && inside[i]! <= to - len; i++) {
    j = Math.max(j, i);
    while (j < inside.length && inside[j]! <= inside[i]! + len) j++;
    best = Math.max(best, j - i);
  }
  return best;
}

export function stepWindow(
  endTimes: { successful: readonly number[]; rejected: readonly number[] },
  startMs: number,
  durationS: number,
  offeredRate: number | null,
  /** begin times of the requests answered successfully (or as planned) within the latency bound */
  inBoundStarts?: readonly number[],
): StepWindow {
  const from = startMs + warmupS(durationS) * 1000;
  const to = startMs + durationS * 1000;
  const windowS = (to - from) / 1000;
  const inWindow = (times: readonly number[]) => times.reduce((n, t) => (t >= from && t <= to ? n + 1 : n), 0);
  const successful = inWindow(endTimes.successful);
  const completed = successful + inWindow(endTimes.rejected);
  const servedShare = offeredRate && windowS > 0 ? completed / windowS / offeredRate : null;
  const begun = inBoundStarts?.reduce((n, t) => (t >= from && t < to ? n + 1 : n), 0);
  const scheduledShare = begun === undefined ? undefined : offeredRate && windowS > 0 ? begun / windowS / offeredRate : null;
  const peakWindowS = Math.min(PEAK_WINDOW_S, windowS);
  const sorted = [...endTimes.successful].sort((a, b) => a - b);
  const peak = windowS > 0 ? densest(sorted, from, to, peakWindowS * 1000) / peakWindowS : 0;
  const round = (x: number) => Math.round(x * 1000) / 1000;
  return {
    durationS: round(windowS),
    successful,
    completed,
    achievedRate: windowS > 0 ? successful / windowS : 0,
    completedRate: windowS > 0 ? completed / windowS : 0,
    completedShare: servedShare === null || scheduledShare == null ? servedShare : Math.min(servedShare, scheduledShare),
    ...(scheduledShare !== undefined ? { scheduledShare } : {}),
    peakRate: peak,
    peakWindowS: round(peakWindowS),
  };
}

export interface K6Aggregate {
  op: MeasuredOp;
  /** epoch ms of the first iteration or request start */
  startMs: number;
  /** epoch ms of the last sample */
  endMs: number;
  perSecond: SeriesPoint[];
  /** latencies that arrived too late for their second's percentiles (see series.ts) */
  lateSamples: number;
  steps: StepAggregate[];
  /** scenarios step_<i> that stepRates names but the file has no sample of */
  missingSteps: string[];
  /** the measured request over the whole file */
  overall: OutcomeAggregate;
  /** group name ("cart_size", "top/depth") -> tag value ("3", "5/2") -> the measured request */
  byTag: Record<string, Record<string, OutcomeAggregate>>;
  /** every other op */
  setupOps: Record<string, OutcomeAggregate>;
  iterations: number;
  droppedIterations: number;
  checks: { passes: number; fails: number };
  /** HTTP requests without an op tag (not counted anywhere else) */
  untaggedRequests: number;
  lines: number;
}

const METRICS = ["http_req_duration", "dropped_iterations", "iterations", "iteration_duration", "checks"];
const STEP_RE = /^step_(\d+)$/;

class ScenarioAcc {
  readonly measured: OutcomeCounter;
  constructor(rejections: Rejections) {
    this.measured = new OutcomeCounter(rejections);
  }
  iterations = 0;
  dropped = 0;
  /** scheduled iteration starts (iteration_duration, dropped_iterations) */
  firstStart = Infinity;
  lastStart = -Infinity;
  /** measured request starts: the fallback when iteration samples are missing */
  firstRequest = Infinity;
  lastRequest = -Infinity;
  /** end times (epoch ms) of the answered measured requests, for the measured window */
  readonly successfulEnds: number[] = [];
  readonly rejectedEnds: number[] = [];
  /** begin times (epoch ms) of the answered measured requests within the latency bound */
  readonly inBoundStarts: number[] = [];

  /** completed iterations' durations, for the VUs they held (Little's law) */
  iterationMsSum = 0;
  iterationCount = 0;

  iterationStart(ms: number): void {
    this.firstStart = Math.min(this.firstStart, ms);
    this.lastStart = Math.max(this.lastStart, ms);
  }
}

const round3 = (x: number) => Math.round(x * 1000) / 1000;

/**
 * A step's duration from the span of its iteration starts: n starts at rate r
 * cover n/r seconds, i.e. span + 1/r. k6 (v1.8.1) sometimes starts one more
 * iteration exactly at the step's end (rate * duration + 1 in all), so the
 * estimate is rounded to whole seconds, which is what the scripts configure.
 */
function estimateDuration(spanS: number, rate: number | null): number {
  const est = spanS + (rate ? 1 / rate : 0);
  const whole = Math.round(est);
  return whole >= 1 ? whole : Math.max(0.001, round3(est));
}

function stepOf(scenario: string, acc: ScenarioAcc, runStartMs: number, options: AggregateOptions): StepAggregate {
  const m = STEP_RE.exec(scenario);
  const index = m ? Number(m[1]) : null;
  const offeredRate = index === null ? null : (options.stepRates[index] ?? null);
  const [first, last] = Number.isFinite(acc.firstStart) ? [acc.firstStart, acc.lastStart] : [acc.firstRequest, acc.lastRequest];
  const given = index === null ? undefined : options.stepDurationsS?.[index];
  const spanS = Number.isFinite(first) ? (last - first) / 1000 : 0;
  const durationS = given ?? estimateDuration(spanS, offeredRate);
  const s = acc.measured.summary();
  const completedRate = (s.successful + s.rejected) / durationS;
  return {
    scenario,
    index,
    offeredRate,
    startS: Number.isFinite(first) ? round3((first - runStartMs) / 1000) : 0,
    durationS,
    durationEstimated: given === undefined,
    ...s,
    iterations: acc.iterations,
    droppedIterations: acc.dropped,
    droppedShare: acc.dropped === 0 ? 0 : acc.dropped / (acc.iterations + acc.dropped),
    meanIterationS: acc.iterationCount ? acc.iterationMsSum / acc.iterationCount / 1000 : null,
    achievedRate: s.successful / durationS,
    completedRate,
    completedShare: offeredRate ? completedRate / offeredRate : null,
    errorRate: s.requests === 0 ? 0 : s.errors / s.requests,
    window: stepWindow(
      { successful: acc.successfulEnds, rejected: acc.rejectedEnds },
      Number.isFinite(first) ? first : runStartMs,
      durationS,
      offeredRate,
      acc.inBoundStarts,
    ),
  };
}

const summarize = (m: Map<string, OutcomeCounter>) =>
  Object.fromEntries([...m].sort(([a], [b]) => a.localeCompare(b, "en", { numeric: true })).map(([k, c]) => [k, c.summary()]));

/** Reads a k6 CSV file (gzipped or not) once, streaming, and aggregates what the metrics of SPEC 5 need. */
export async function aggregateK6(file: string, options: AggregateOptions): Promise<K6Aggregate> {
  const rejections = options.rejections ?? "failure";
  const latencyBoundMs = options.latencyBoundMs ?? SUSTAINABLE.maxP99Ms;
  const counter = () => new OutcomeCounter(rejections);
  const groups = (options.groupBy ?? DEFAULT_GROUP_BY[options.op]).map((tags) => ({ name: tags.join("/"), tags, values: new Map<string, OutcomeCounter>() }));
  const scenarios = new Map<string, ScenarioAcc>();
  const scenario = (name: string) => {
    let acc = scenarios.get(name);
    if (!acc) scenarios.set(name, (acc = new ScenarioAcc(rejections)));
    return acc;
  };
  const overall = counter();
  const setup = new Map<string, OutcomeCounter>();
  const series = new SeriesBuilder();
  const checks = { passes: 0, fails: 0 };
  let [startMs, endMs, iterations, dropped, untagged] = [Infinity, -Infinity, 0, 0, 0];

  const onSample = (s: K6Sample) => {
    endMs = Math.max(endMs, s.timeMs);
    switch (s.metric) {
      case "http_req_duration": {
        const begin = s.timeMs - s.value;
        startMs = Math.min(startMs, begin);
        const op = s.tags.op;
        if (op === undefined) {
          untagged++;
        } else if (op !== options.op) {
          let c = setup.get(op);
          if (!c) setup.set(op, (c = counter()));
          c.add(s.status, s.value);
        } else {
          const outcome = overall.add(s.status, s.value);
          series.request(s.timeMs, outcome, outcome === "errors" ? undefined : s.value);
          const acc = scenario(s.scenario);
          acc.measured.add(s.status, s.value);
          if (outcome === "successful") acc.successfulEnds.push(s.timeMs);
          else if (outcome === "rejected") acc.rejectedEnds.push(s.timeMs);
          if (outcome !== "errors" && s.value <= latencyBoundMs) acc.inBoundStarts.push(begin);
          acc.firstRequest = Math.min(acc.firstRequest, begin);
          acc.lastRequest = Math.max(acc.lastRequest, begin);
          for (const g of groups) {
            const parts = g.tags.map((t) => s.tags[t]);
            if (parts.some((p) => p === undefined)) continue;
            const key = parts.join("/");
            let c = g.values.get(key);
            if (!c) g.values.set(key, (c = counter()));
            c.add(s.status, s.value);
          }
        }
        break;
      }
      case "iteration_duration": {
        const begin = s.timeMs - s.value;
        startMs = Math.min(startMs, begin);
        const acc = scenario(s.scenario);
        acc.iterationStart(begin);
        acc.iterationMsSum += s.value;
        acc.iterationCount++;
        break;
      }
      case "iterations":
        iterations += s.value;
        scenario(s.scenario).iterations += s.value;
        break;
      case "dropped_iterations": {
        startMs = Math.min(startMs, s.timeMs);
        dropped += s.value;
        const acc = scenario(s.scenario);
        acc.dropped += s.value;
        acc.iterationStart(s.timeMs);
        series.dropped(s.timeMs);
        break;
      }
      case "checks":
        if (s.value > 0) checks.passes++;
        else checks.fails++;
        break;
    }
  };

  const { lines } = await streamK6Csv(file, onSample, { metrics: METRICS });
  if (!Number.isFinite(startMs)) startMs = Number.isFinite(endMs) ? endMs : 0;
  if (!Number.isFinite(endMs)) endMs = startMs;

  const steps = [...scenarios]
    .filter(([name, acc]) => STEP_RE.test(name) || acc.measured.requests > 0)
    .map(([name, acc]) => stepOf(name, acc, startMs, options))
    .sort((a, b) => (a.index ?? Infinity) - (b.index ?? Infinity) || a.scenario.localeCompare(b.scenario));
  const windows: OfferedWindow[] = steps.flatMap((s) =>
    s.offeredRate === null ? [] : [{ startMs: startMs + s.startS * 1000, endMs: startMs + (s.startS + s.durationS) * 1000, rate: s.offeredRate }],
  );
  const seen = new Set(steps.map((s) => s.scenario));

  return {
    op: options.op,
    startMs,
    endMs,
    perSecond: series.finish(startMs, windows),
    lateSamples: series.lateSamples,
    steps,
    missingSteps: options.stepRates.map((_, i) => `step_${i}`).filter((n) => !seen.has(n)),
    overall: overall.summary(),
    byTag: Object.fromEntries(groups.map((g) => [g.name, summarize(g.values)])),
    setupOps: summarize(setup),
    iterations,
    droppedIterations: dropped,
    checks,
    untaggedRequests: untagged,
    lines,
  };
}
