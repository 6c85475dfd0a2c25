/**
 * What every phase of an experiment shares: the run's context, the cell being
 * measured, the state phases hand to each other, and what a phase adds to the
 * cell's result. cell.ts runs the phases of an experiment in order; each
 * phase is one file in phases/.
 *
 * Adding a phase: write phases/<name>.ts exporting a `Phase`, declare the
 * state it hands on by augmenting `CellState` in that file
 * (`declare module "../phase.ts" { interface CellState { mine?: ... } }`),
 * add its result part to @sfbench/core's Cell schema and its chart to the
 * run page, and list it in experiments.ts. Nothing else changes.
 */
import { lastLines, type Cell, type CellChoice, type LoadGenerator, type ProgressEvent, type TargetControl } from "@sfbench/core";
import type { K6Aggregate, StepAggregate } from "../analysis/aggregate.ts";
import type { CheckoutRecord } from "../audit/records.ts";
import type { CpuSplit } from "../cost/affinity.ts";
import type { SamplerResult } from "../cost/sampler.ts";
import type { TraceSession } from "../trace/session.ts";
import type { ProfileSettings } from "./profiles.ts";

/** An error that knows the stage it happened in (it ends up in the failed run's document). */
export class StageError extends Error {
  constructor(
    readonly stage: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * A liveness check for the run: throws "target exited with <how> during <stage>"
 * once `exited` reports how the target's process ended, with the last lines of
 * its log when it has one (why it died is there, and the document is what stays).
 */
export function aliveCheck(exited: () => string | undefined, log?: string): (stage: string) => void {
  return (stage) => {
    const how = exited();
    if (!how) return;
    const lines = log === undefined ? undefined : lastLines(log);
    const last = lines ? `; last lines of its log:\n${lines}` : "";
    throw new StageError(stage, `target exited with ${how} during ${stage}${last}`);
  };
}

export type { TargetControl } from "@sfbench/core";

/** The whole run's context, shared by every cell. */
export interface RunContext {
  baseUrl: string;
  k6: string;
  /** runs k6: on this machine's host, or beside the target where its provider runs it */
  generator: LoadGenerator;
  seed: number;
  settings: ProfileSettings;
  rawDir: string;
  productPrefix: string;
  split?: CpuSplit;
  /** root pids of the target and of the services it uses; empty when unknown (a target given by URL) */
  targetPids: () => number[];
  /** throws a StageError when the target has died */
  checkAlive: (stage: string) => void;
  onProgress: (event: ProgressEvent) => void;
  /** every checkout of the run so far: co-purchase counts accumulate over the run */
  allCheckouts: CheckoutRecord[];
  /** product id -> price, from the seeding records */
  prices: Map<string, number>;
  /** raw files written so far (kept in the result document) */
  rawFiles: string[];
  /** the run's span topic, when the target writes spans and Kafka is up: the traced phase runs and gives a breakdown */
  trace?: TraceSession;
  /** aborted when the run is interrupted: k6 is killed and checkAlive throws */
  signal?: AbortSignal;
  /** kill, restart and add nodes (the resilience experiments); absent for a target given by URL */
  target?: TargetControl;
  /** the pace of the audit's reads that the target's manifest asks for (audit.readsPerSecond) */
  auditReadsPerSecond?: number;
  /** the pace of the populate phase that the target's manifest asks for (populate.checkoutsPerSecond) */
  populateCheckoutsPerSecond?: number;
}

/** The cell a phase works on. */
export interface CellPlan extends CellChoice {
  /** `checkout/uniform` */
  name: string;
  /** file stem of a raw output of this cell: `checkout-uniform-<part>` */
  file: (part: string) => string;
  /** the t at which the next series a phase returns starts in the cell's series (phases that mark instants use it) */
  seriesEnd: () => number;
}

/** One k6 run at one arrival rate, analysed: what the load phases hand on. */
export interface LoadOutcome {
  agg: K6Aggregate;
  /** the raw k6 output it was analysed from */
  csv: string;
  step: StepAggregate;
  checkouts: CheckoutRecord[];
  stockAdded: Map<string, number>;
  generatorCpuShare?: number;
  usage?: SamplerResult;
}

/**
 * What phases hand to later phases. Empty here: every phase file declares its
 * own part by module augmentation, so a new phase does not edit this file.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface CellState {}

/** What a phase adds to the cell. */
export interface PhaseResult {
  /** for later phases (only the keys the phase declares in `adds`) */
  state?: Partial<CellState>;
  /** parts of the cell's result document */
  result?: Partial<Omit<Cell, "workload" | "distribution" | "parameters" | "seed" | "series" | "valid" | "invalidReason">>;
  /** workload parameters as used (merged into cell.parameters) */
  parameters?: Cell["parameters"];
  /** per-second series measured in this phase, appended to the cell's series in phase order */
  series?: K6Aggregate[];
  /** why this phase makes the cell's numbers not valid (joined into invalidReason) */
  invalid?: string[];
}

export interface Phase {
  /** the name progress events carry */
  name: ProgressEvent["phase"];
  /** state keys it reads: an earlier phase of the experiment must add each */
  needs: readonly (keyof CellState)[];
  /** state keys it hands on */
  adds: readonly (keyof CellState)[];
  /** runs the phase; `state` holds what earlier phases added */
  run(ctx: RunContext, cell: CellPlan, state: Readonly<CellState>): Promise<PhaseResult>;
}

/** A progress event of a phase. */
export function progress(
  ctx: RunContext,
  cell: CellPlan | string,
  phase: ProgressEvent["phase"],
  detail: string,
  extra: Omit<ProgressEvent, "cell" | "phase" | "detail"> = {},
): void {
  ctx.onProgress({ cell: typeof cell === "string" ? cell : cell.name, phase, detail, ...extra });
}
