/**
 * Ramp: the max-throughput search. A warm-up step (not judged), then stepped
 * arrival rates, coarse, then bisection to the profile's resolution
 * (knee.ts), with quiet time between steps; then the candidate is confirmed by
 * repeated longer steps, stepping down on any failure and bisecting back up to
 * the resolution (confirmKnee). Hands
 * the confirmed rate (or the peak when no step was sustainable) to the stable phase.
 */
import { judgedSteps, kneeBracket, narrowFailure, type KneeStop, type MaxThroughput, type StepResult } from "@sfbench/core";
import { generatorSaturated, judgeStep, SUSTAINABLE } from "../../analysis/metrics.ts";
import { peakThroughput, stepResult } from "../../analysis/result-parts.ts";
import { confirmKnee, findKnee, roundRate, type KneeResult, type KneeStep } from "../knee.ts";
import { runLoadStep, targetAnsweredInTime, targetCpu } from "../load-step.ts";
import { confirmPlan } from "../profiles.ts";
import { progress, type LoadOutcome, type Phase } from "../phase.ts";
import { type QuietOutcome, waitQuiet } from "../quiet.ts";

declare module "../phase.ts" {
  interface CellState {
    ramp?: {
      steps: LoadOutcome[];
      /** the highest sustainable offered rate, null when no step was sustainable */
      sustainableRate: number | null;
      /** the maximum 10 s moving average of successful requests */
      peak: number;
      stoppedBecause: KneeStop;
    };
  }
}

type StepPhase = NonNullable<StepResult["phase"]>;

/** Cores used over a window, to the thousandth; undefined without a window. */
function coresUsed(cpu: { cpuSeconds: number; seconds: number } | undefined): number | undefined {
  return cpu && cpu.seconds > 0 ? Math.round((cpu.cpuSeconds / cpu.seconds) * 1000) / 1000 : undefined;
}

/**
 * The cores the target used at its knee: the mean over the judged steps run
 * at the sustainable rate that held (the confirmation's repeats, and the
 * search's own step there). Undefined without a knee or without the
 * target's CPU (a target given by URL).
 */
export function kneeCores(steps: readonly StepResult[], sustainableRate: number | null): number | undefined {
  if (sustainableRate === null) return undefined;
  const at = steps
    .filter((s) => s.phase !== "warmup" && s.offeredRate === sustainableRate && !s.failedBecause?.length)
    .flatMap((s) => (s.targetCores === undefined ? [] : [s.targetCores]));
  return at.length ? Math.round((at.reduce((a, b) => a + b, 0) / at.length) * 1000) / 1000 : undefined;
}

/**
 * One warm-up step as the warm-up judges it: the target's CPU per successful
 * request (undefined when it cannot be read), whether it served the offered
 * rate, and whether it used (nearly) all its cores doing so.
 */
export interface WarmupStep {
  cost: number | undefined;
  overloaded: boolean;
  full: boolean;
}

/**
 * A warm-up step as warmedUp reads it. Overloaded by what the target served
 * inside the step, as the search judges its steps (the step's window), not by
 * every answer that came by the end of k6's grace period: a target whose
 * queue grew through the step answers most of it afterwards, and looked as if
 * it kept up (Dapr's analytics at 25/s served 13 queries/s inside each step,
 * 2 s at p50, and ran six warm-up steps, "all its cores busy", where it should
 * have stopped after one). `used` is the target's cores during the step,
 * `given` the cores it was given.
 */
export function warmupStepOf(
  step: { offeredRate: number | null; achievedRate: number; window: { completedRate: number } },
  used: number | undefined,
  given: number | undefined,
): WarmupStep {
  return {
    cost: used !== undefined && step.achievedRate > 0 ? used / step.achievedRate : undefined,
    overloaded: step.offeredRate !== null && step.window.completedRate < 0.9 * step.offeredRate,
    full: used !== undefined && given !== undefined && used >= 0.9 * given,
  };
}

/**
 * Whether the warm-up is over. Over at once when the cost cannot be read (a
 * target given by URL, a step with no success: nothing says to wait) or when
 * the step was overloaded (the rate is above what the target serves, so
 * another step tells nothing, and the search starts below it). Not over
 * while the target used all its cores at a rate it served: a JVM compiling
 * its hot paths fills the core beside the requests, so its CPU per request
 * stays level while it is not yet warm (Pekko at 25/s: 0.98 and 0.95 of its
 * core, then 0.90 at 62/s). Else over once the CPU per request no longer fell
 * by more than `tolerance` from the step before (never after one step).
 */
export function warmedUp(steps: readonly WarmupStep[], tolerance: number): boolean {
  const last = steps.at(-1);
  const before = steps.at(-2);
  if (last?.cost === undefined || last.overloaded) return true;
  if (last.full || !before) return false;
  return before.cost === undefined || last.cost >= before.cost * (1 - tolerance);
}

/**
 * The warm-up: `step` runs one warm-up step and says how it went; without
 * `settle` one step, else steps until warmedUp or `settle.maxSteps`. Says
 * why each further step runs.
 */
export async function warmUp(
  step: () => Promise<WarmupStep>,
  settle: { maxSteps: number; tolerance: number } | undefined,
  say: (line: string) => void,
): Promise<{ steps: number; settled: boolean }> {
  const steps: WarmupStep[] = [];
  const ms = (c: number | undefined) => (c === undefined ? "?" : `${(c * 1000).toFixed(2)} core-ms`);
  for (;;) {
    steps.push(await step());
    if (!settle || warmedUp(steps, settle.tolerance)) return { steps: steps.length, settled: true };
    const i = steps.length - 1;
    const now =
      `warm-up step ${i + 1}: ${ms(steps[i]!.cost)} per request` +
      (steps[i]!.full ? ", all its cores busy" : i > 0 ? ` (${ms(steps[i - 1]!.cost)} the step before)` : "");
    if (steps.length >= settle.maxSteps) {
      say(`${now}, not settled after ${settle.maxSteps} warm-up steps: the search starts anyway`);
      return { steps: steps.length, settled: false };
    }
    say(`${now}: warming up again`);
  }
}

/**
 * The judged steps whose generator could have set the knee: every one up to
 * the first unsustainable rate. A step above it bounds nothing: a lower step
 * already failed (and is itself among these, so a saturated generator there
 * still makes the cell invalid), and the knee is bracketed without it.
 */
export function stepsThatBoundTheKnee<T extends { step: { offeredRate: number | null } }>(judged: readonly T[], firstUnsustainableRate: number | null): T[] {
  return judged.filter((p) => firstUnsustainableRate === null || p.step.offeredRate === null || p.step.offeredRate <= firstUnsustainableRate);
}

/**
 * One search step: a narrow failure (core narrowFailure) is run again at once
 * and the repeat decides, once; any other verdict stands. `repeating` is told
 * before the repeat runs.
 */
export async function searchStep(
  run: () => Promise<{ sustainable: boolean; narrow: boolean }>,
  repeatNarrow: boolean,
  repeating: () => void,
): Promise<boolean> {
  const first = await run();
  if (first.sustainable || !first.narrow || !repeatNarrow) return first.sustainable;
  repeating();
  return (await run()).sustainable;
}

export const ramp: Phase = {
  name: "ramp",
  needs: [],
  adds: ["ramp"],
  async run(ctx, cell) {
    const s = ctx.settings;
    const proc = s.procedure;
    const steps: LoadOutcome[] = [];
    const phases: StepPhase[] = [];
    const quietS: number[] = [];
    let unsettled = 0;
    const cores: (number | undefined)[] = [];
    const load = async (rate: number, kind: StepPhase, durationS: number) => {
      // the step after an overload inherits its drain unless the target settles first
      const waited: QuietOutcome = steps.length ? await waitQuiet(proc.quiet, ctx.targetPids, ctx.signal) : { seconds: 0, settled: true };
      const detail = `${kind} step ${steps.length + 1} at ${rate}/s`;
      if (!waited.settled) {
        unsettled++;
        progress(ctx, cell, "ramp", `${detail} starts on a backlog: the target still used ${waited.cores} cores after ${waited.seconds} s`);
      }
      const p = await runLoadStep(ctx, cell, {
        rate,
        durationS,
        name: cell.file(`ramp-${steps.length}`),
        stage: `ramp (${detail})`,
        phase: "ramp",
        detail,
        // the target's cores per step say whether its knee is its CPU or something it waits on
        sampleTarget: true,
      });
      steps.push(p);
      phases.push(kind);
      quietS.push(waited.seconds);
      cores.push(ctx.targetPids().length ? coresUsed(targetCpu(p.usage, p.agg)) : undefined);
      return judgeStep(p.step).sustainable;
    };

    // a cold first step set the knee: prime the target, unjudged, until its CPU per request stops falling
    const warm =
      proc.warmupS > 0
        ? await warmUp(
            async () => {
              await load(Math.max(s.knee.minRate ?? 1, roundRate(s.knee.startRate * proc.warmupShare)), "warmup", proc.warmupS);
              return warmupStepOf(steps.at(-1)!.step, cores.at(-1), ctx.split?.targetCores);
            },
            proc.warmupSettle,
            (line) => progress(ctx, cell, "ramp", line),
          )
        : { steps: 0, settled: true };
    const repeated: boolean[] = [];
    const search = (rate: number, kind: "coarse" | "fine") =>
      searchStep(
        async () => {
          const sustainable = await load(rate, kind, s.stepS);
          return { sustainable, narrow: narrowFailure(steps.at(-1)!.step) };
        },
        proc.repeatNarrow,
        () => {
          repeated[steps.length - 1] = true;
          const reasons = judgeStep(steps.at(-1)!.step).reasons.join(", ");
          progress(ctx, cell, "ramp", `${kind} step ${steps.length} at ${rate}/s failed narrowly (${reasons}): running it again`);
        },
      );
    const found = await findKnee({ ...s.knee }, async (rate, kind) => ({ rate, sustainable: await search(rate, kind) }));

    // MLPerf-style confirmation: the candidate repeated with longer steps (confirmKnee)
    let confirmation: NonNullable<NonNullable<MaxThroughput["knee"]>["confirmation"]> | undefined;
    if (proc.confirm.count > 0 && found.sustainableRate !== null) {
      const holds = async (rate: number) => {
        for (let i = 0; i < proc.confirm.count; i++) if (!(await load(rate, "confirm", proc.confirm.stepS))) return false;
        return true;
      };
      const { confirmedRate, stepsDown } = await confirmKnee(found.sustainableRate, confirmPlan(s), holds);
      confirmation = { count: proc.confirm.count, stepS: proc.confirm.stepS, candidateRate: found.sustainableRate, confirmedRate, stepsDown };
    }

    // the steps as the document stores them; a confirmed knee is bracketed from these, as the board rechecks it
    const stored: StepResult[] = steps.map((p, i) => ({
      ...stepResult({ ...p.step, scenario: `step_${i}` }, phases[i] === "warmup" ? [] : judgeStep(p.step).reasons),
      phase: phases[i]!,
      ...(repeated[i] ? { repeated: true as const } : {}),
      ...(i > 0 ? { quietS: quietS[i]! } : {}),
      ...(cores[i] !== undefined ? { targetCores: cores[i] } : {}),
    }));
    let knee: KneeResult<KneeStep> = found;
    if (confirmation) {
      const bracket = kneeBracket(judgedSteps(stored));
      knee = {
        ...found,
        sustainableRate: bracket.sustainableRate,
        firstUnsustainableRate: bracket.firstUnsustainableRate,
        resolution: bracket.resolution,
        stoppedBecause: confirmation.confirmedRate === null ? "confirmation-failed" : found.stoppedBecause,
      };
    }

    const judged = steps.filter((_, i) => phases[i] !== "warmup");
    const peak = peakThroughput(judged.map((p) => p.step));
    const atKnee = kneeCores(stored, knee.sustainableRate);
    const maxThroughput: MaxThroughput = {
      ...peak,
      sustainableRate: knee.sustainableRate,
      steps: stored,
      ...(atKnee !== undefined ? { kneeCores: atKnee } : {}),
      knee: {
        stoppedBecause: knee.stoppedBecause,
        firstUnsustainableRate: knee.firstUnsustainableRate,
        resolution: knee.resolution,
        targetResolution: s.knee.fineSteps > 0 ? (s.knee.resolution ?? 0.1) : null,
        ...(confirmation ? { confirmation } : {}),
      },
    };
    progress(
      ctx,
      cell,
      "ramp",
      `knee: sustainable ${knee.sustainableRate ?? "none"}/s, first unsustainable ${knee.firstUnsustainableRate ?? "none"}/s, resolution ${knee.resolution === null ? "none" : `${(knee.resolution * 100).toFixed(1)}%`} (${knee.stoppedBecause})`,
    );
    // a saturated generator measures itself, not the target: checked on every step that bounds the
    // knee, since a sustainable step whose generator fell behind offered less than its rate says
    const invalid: string[] = [];
    for (const p of stepsThatBoundTheKnee(judged, knee.firstUnsustainableRate)) {
      const gen = generatorSaturated({
        droppedIterations: p.step.droppedIterations,
        iterations: p.step.iterations,
        generatorCpuShare: p.generatorCpuShare,
        targetAnsweredInTime: targetAnsweredInTime(p.step, SUSTAINABLE.maxP99Ms),
      });
      if (gen.saturated) invalid.push(`ramp step at ${p.step.offeredRate}/s: ${gen.reasons.join(", ")}: the knee may be the generator's`);
    }
    return {
      state: { ramp: { steps, sustainableRate: knee.sustainableRate, peak: peak.maxMovingAvg10s, stoppedBecause: knee.stoppedBecause } },
      result: { maxThroughput },
      // the procedure is data: stored with the cell, shown on the run page
      parameters: {
        stepS: s.stepS,
        kneeStoppedBecause: knee.stoppedBecause,
        warmupS: proc.warmupS,
        warmupSteps: warm.steps,
        ...(proc.warmupSettle ? { warmupSettleTolerance: proc.warmupSettle.tolerance, warmupSettled: warm.settled } : {}),
        quietMaxS: proc.quiet.maxS,
        quietCpuShare: proc.quiet.cpuShare,
        quietUnsettled: unsettled,
        confirmCount: proc.confirm.count,
        confirmStepS: proc.confirm.stepS,
        confirmStepsDown: proc.confirm.stepsDown,
        repeatNarrow: proc.repeatNarrow,
      },
      series: steps.map((p) => p.agg),
      invalid,
    };
  },
};
