/**
 * Verify, then measure: the one harness every way a run starts goes through
 * (`sfbench run` and `sfbench campaign` for a bundled target, an image, a URL
 * or the cluster program under kube play; the worker's runs from the portal).
 * It starts the target through its provider on the run's share of the
 * machine, verifies it (a target that fails the conformance suite gets a
 * stored failed document and no numbers), measures the plan's experiment and
 * cells with runBenchmark, and stops the target in `finally`, whatever the
 * provider. What differs between the callers is only how they choose the
 * provider and how they show progress and the outcome.
 */
import { randomUUID } from "node:crypto";
import { join } from "node:path";
import {
  microOf,
  PIPELINE_STAGES,
  type CellChoice,
  type Experiment,
  type Profile,
  type PopulatedState,
  type ProgressEvent,
  type ResultDocument,
  type RunningTarget,
  type RunParameters,
  type TargetManifest,
  type TargetProvider,
  type TrialTag,
} from "@sfbench/core";
import { runConformance, type ConformanceReport } from "@sfbench/conformance";
import { status as serviceStatus, up } from "@sfbench/services";
import { targetShare } from "../cost/affinity.ts";
import { aliveCheck } from "./phase.ts";
import type { ProfileSettings } from "./profiles.ts";
import type { MeasuredNodeCount } from "../resilience/scalability.ts";
import { failedRunDocument, runBenchmark, writeResult } from "./run.ts";
import { buildPopulatedState } from "./setup.ts";
import { keepTargetLogs, keptLogsNote } from "./target-logs.ts";
import { PROFILE_SETTINGS } from "./profiles.ts";
import { runK6 } from "./k6-runner.ts";

/** the pipeline's stages before the measuring begins (core's list: provision, then verify) */
export type BeforeMeasuring = (typeof PIPELINE_STAGES)[0] | (typeof PIPELINE_STAGES)[1];

export interface MeasurePlan {
  /** the target as the documents name it */
  target: ResultDocument["target"];
  /** its manifest; absent for a target given by URL (its micro routes are then asked for) */
  manifest?: TargetManifest;
  runId?: string;
  profile: Profile;
  /** the workloads and distributions chosen (the micro routes go with every workload) */
  chosen: Pick<RunParameters, "workloads" | "distributions" | "micro">;
  cells: CellChoice[];
  experiment: Experiment;
  seed: number;
  k6: string;
  repoRoot: string;
  resultsDir: string;
  rawRoot: string;
  /** processes the target was started as (recorded; the scalability experiment runs once per count) */
  nodes?: number;
  scalability?: { measured: MeasuredNodeCount[]; routing: "balancer" | "self" };
  campaign?: TrialTag;
  settings?: Partial<ProfileSettings>;
  /**
   * A campaign's populated state to start the target on (built by
   * buildPopulated): the provider restores the copy in <restore>/data, and
   * the run measures without seeding.
   */
  populated?: { restore: string; state: PopulatedState };
  /**
   * Kafka for the spans, when the target writes them: resolves to the brokers,
   * or rejects when Kafka cannot be had (the run goes on without a breakdown).
   * Absent: no tracing (the caller said so, or the place has no Kafka).
   */
  kafka?: () => Promise<string[]>;
  /** how long the conformance suite may take (its default when absent) */
  verifyBudgetMs?: number;
  /** errors of provider.start() that are the target's own failure (stored as a failed document at "provision"); the rest are thrown */
  isTargetFailure?: (e: unknown) => boolean;
  signal?: AbortSignal;
  /** a line of progress for people ("verifying ...", "tracing off: ...") */
  onNote?: (message: string) => void;
  /** the stage the run is in, for a progress bar */
  onStage?: (stage: BeforeMeasuring | "measure") => void;
  onCheck?: (done: number, total: number) => void;
  onProgress?: (event: ProgressEvent) => void;
}

export type MeasureOutcome =
  /** measured: its document says how it ended (completed, failed at a stage, or interrupted mid-measurement) */
  | { status: "measured"; doc: ResultDocument; file: string }
  /** failed before any measuring: its stored document, and the conformance report when verify failed */
  | { status: "not-measured"; stage: BeforeMeasuring; doc: ResultDocument; file: string; report?: ConformanceReport }
  /** the signal was aborted before the measuring began: nothing written, the caller ends the run */
  | { status: "interrupted"; stage: BeforeMeasuring };

/** What the harness hands the step after verification: the started target and what the run learned before measuring. */
interface Verified {
  t: RunningTarget;
  runId: string;
  brokers: string[] | undefined;
  microWanted: boolean;
  microDeclared: boolean;
}

/** The node count a target starts as: the one asked for; an elastic target in the scale-up experiment starts as node 0 of 1. */
export function nodesToStart(manifest: TargetManifest | undefined, experiment: Experiment, nodes: number | undefined): number | undefined {
  return nodes ?? (experiment === "scale-up" && manifest?.nodes?.elastic === true ? 1 : undefined);
}

/** The message a failed verify is stored with: how many checks failed, and the first few with why. */
export function verifyFailure(report: ConformanceReport): string {
  const failed = report.checks.filter((c) => !c.passed);
  return `${failed.length} of ${report.checks.length} conformance checks failed: ${failed
    .slice(0, 5)
    .map((c) => `${c.id} (${c.message})`)
    .join("; ")}`;
}

export async function measureTarget(provider: TargetProvider, plan: MeasurePlan): Promise<MeasureOutcome> {
  const restore = plan.populated;
  if (restore && !provider.restore) throw new Error(`${provider.describe} cannot restore a target's data: no populated state`);
  return harness(provider, plan, "document", async ({ t, runId, brokers, microWanted, microDeclared }) => {
    const outcome = await runBenchmark({
      runId,
      target: plan.target,
      baseUrl: t.url,
      k6: plan.k6,
      profile: plan.profile,
      cells: plan.cells,
      experiment: plan.experiment,
      ...(microWanted ? { micro: { declared: microDeclared } } : {}),
      ...(plan.manifest?.audit?.readsPerSecond ? { auditReadsPerSecond: plan.manifest.audit.readsPerSecond } : {}),
      ...(plan.manifest?.populate?.checkoutsPerSecond ? { populateCheckoutsPerSecond: plan.manifest.populate.checkoutsPerSecond } : {}),
      seed: plan.seed,
      repoRoot: plan.repoRoot,
      resultsDir: plan.resultsDir,
      rawRoot: plan.rawRoot,
      targetPids: () => t.pids(),
      checkAlive: aliveCheck(() => t.exited(), t.log),
      targetLogs: () => logsOf(t),
      ...(t.control ? { control: t.control } : {}),
      ...(t.generator ? { generator: t.generator } : {}),
      ...(t.environment ? { place: t.environment } : {}),
      ...(t.storage ? { storage: t.storage } : {}),
      ...(brokers && t.log ? { trace: { logFile: t.log, ...(t.logFiles ? { logFiles: t.logFiles } : {}), brokers } } : {}),
      systemVersion: await systemVersion(plan, t),
      ...(plan.nodes !== undefined ? { nodes: plan.nodes } : {}),
      ...(plan.scalability ? { scalability: plan.scalability } : {}),
      ...(plan.campaign ? { campaign: plan.campaign } : {}),
      ...(plan.settings ? { settings: plan.settings } : {}),
      ...(restore ? { populated: restore.state } : {}),
      ...(plan.signal ? { signal: plan.signal } : {}),
      ...(plan.onProgress ? { onProgress: plan.onProgress } : {}),
    });
    return { status: "measured", doc: outcome.doc, file: outcome.file };
  });
}

/**
 * A campaign's populated state, built once per target: the target started
 * fresh and verified exactly as a trial's is, seeded and (for an analytics
 * cell) populated, stopped, and its data copied into <dir>/data with the
 * provider's snapshot. Nothing is measured and no document is written: a
 * failure throws, and the campaign's trials then seed their own.
 */
export async function buildPopulated(
  provider: TargetProvider,
  plan: Omit<MeasurePlan, "populated" | "campaign" | "resultsDir">,
  dir: string,
): Promise<PopulatedState | undefined> {
  const cannot = noPopulatedState(provider, plan.manifest);
  if (cannot) throw new Error(cannot);
  const outcome = await harness(provider, { ...plan, resultsDir: "" }, "throw", async ({ t, runId }) => {
    const state = await buildPopulatedState({
      buildId: runId,
      baseUrl: t.url,
      k6: plan.k6,
      generator: t.generator ?? runK6,
      seed: plan.seed,
      settings: { ...PROFILE_SETTINGS[plan.profile], ...plan.settings },
      cells: plan.cells,
      ...(plan.manifest?.populate?.checkoutsPerSecond ? { populateCheckoutsPerSecond: plan.manifest.populate.checkoutsPerSecond } : {}),
      rawRoot: plan.rawRoot,
      checkAlive: aliveCheck(() => t.exited(), t.log),
      ...(plan.signal ? { signal: plan.signal } : {}),
      ...(plan.onProgress ? { onProgress: plan.onProgress } : {}),
    }).catch((e: Error) => {
      // the build writes no document: the end of the target's log goes with the build's raw data, and the error says where
      const kept = plan.signal?.aborted ? [] : keepTargetLogs(logsOf(t), join(plan.rawRoot, runId));
      e.message += keptLogsNote(kept);
      throw e;
    });
    // the provider stops it cleanly first: the copy is what the next start would find
    plan.onNote?.(`stopping ${plan.target.name} and copying its data: the populated state every trial starts from`);
    const bytes = await provider.snapshot!(join(dir, "data"));
    return { status: "built" as const, state: { ...state, bytes } };
  });
  return outcome.status === "built" ? outcome.state : undefined;
}

/** Every log the started target writes (absent: the provider gives none, as for a target given by URL). */
function logsOf(t: RunningTarget): string[] {
  return t.logFiles?.() ?? (t.log ? [t.log] : []);
}

/** Why this target cannot start its trials on a populated state (undefined: it can). */
export function noPopulatedState(
  provider: Pick<TargetProvider, "describe" | "snapshot" | "restore">,
  manifest: TargetManifest | undefined,
): string | undefined {
  if (!provider.snapshot || !provider.restore) return `${provider.describe}: its provider cannot copy a target's data between starts`;
  if (!manifest) return "a target given by URL: sfbench does not hold its data";
  if (manifest.guarantees.durability === "in-memory")
    return `${manifest.name} keeps its data in memory (durability in-memory): nothing of it outlives a restart`;
  return undefined;
}

/**
 * Start, verify, then the step (measure, or build a populated state), and
 * stop in `finally`. A failure before the step is a stored failed document
 * (`document`) or an error (`throw`: building a populated state is not a run).
 */
async function harness<T>(
  provider: TargetProvider,
  plan: MeasurePlan,
  failures: "document" | "throw",
  step: (v: Verified) => Promise<T>,
): Promise<T | Exclude<MeasureOutcome, { status: "measured" }>> {
  const note = plan.onNote ?? (() => {});
  const startedAt = new Date();
  // one id for the document, its raw data and whatever the provider named after the run
  const runId = plan.runId ?? randomUUID();
  const restore = plan.populated;
  const rawDir = join(plan.rawRoot, runId);
  const notMeasured = (
    stage: BeforeMeasuring,
    message: string,
    report?: ConformanceReport,
    t?: RunningTarget,
  ): Exclude<MeasureOutcome, { status: "measured" }> => {
    // a target that started and failed its checks may say why in its log
    const kept = t ? keepTargetLogs(logsOf(t), rawDir) : [];
    if (failures === "throw") throw new Error(`${stage}: ${message}${keptLogsNote(kept)}`);
    const doc: ResultDocument = {
      ...failedRunDocument({
        runId,
        target: plan.target,
        profile: plan.profile,
        startedAt,
        stage,
        message,
        k6: plan.k6,
        repoRoot: plan.repoRoot,
        rawDir,
        files: kept.map((f) => f.slice(rawDir.length + 1)),
      }),
      ...(plan.campaign ? { campaign: plan.campaign } : {}),
      // the state it was started on, also when it did not start or verify on it
      ...(restore ? { populatedState: restore.state } : {}),
    };
    return { status: "not-measured", stage, doc, file: writeResult(plan.resultsDir, doc), ...(report ? { report } : {}) };
  };

  let brokers: string[] | undefined;
  if (plan.kafka && (plan.manifest ? plan.manifest.tracing === true : false)) {
    brokers = await plan.kafka().catch((e: Error) => {
      note(`tracing off, no latency breakdown: Kafka is not available: ${e.message}`);
      return undefined;
    });
  }
  // a run stopped before it began starts nothing, so it stops nothing either (a target of the same name may be someone else's)
  if (plan.signal?.aborted) return { status: "interrupted", stage: "provision" };
  // stopping the target makes whatever is in flight (health wait, conformance, audit) end at once
  const onAbort = () => void provider.stop().catch(() => {});
  plan.signal?.addEventListener("abort", onAbort, { once: true });
  try {
    plan.onStage?.("provision");
    let t: RunningTarget;
    if (restore) await provider.restore!(join(restore.restore, "data"));
    try {
      // started on the cores the run gives it and told how many, before it sizes itself (a container or cluster has its own limits)
      const cores = targetShare();
      t = await provider.start({ trace: brokers !== undefined, onProgress: note, ...(cores ? { cores } : {}) });
    } catch (e) {
      if (plan.signal?.aborted) return { status: "interrupted", stage: "provision" };
      if (plan.isTargetFailure?.(e)) return notMeasured("provision", (e as Error).message);
      throw e;
    }
    if (plan.signal?.aborted) return { status: "interrupted", stage: "provision" };
    note(`${plan.target.name} is up at ${t.url} (${provider.describe})${brokers && t.log ? " (tracing: span lines shipped through Kafka)" : ""}`);

    // 1. Verify before measuring.
    plan.onStage?.("verify");
    const microWanted = microOf(plan.chosen);
    // the micro routes: what the manifest declares; a target given by URL is asked
    const microDeclared = plan.manifest ? plan.manifest.micro === true : microWanted && (await answers(`${t.url}/micro/empty`));
    note(`verifying ${t.url} (conformance suite)`);
    const report = await runConformance(t.url, {
      micro: microDeclared,
      ...(plan.verifyBudgetMs ? { budgetMs: plan.verifyBudgetMs } : {}),
      ...(plan.onCheck ? { onCheck: (_r: unknown, done: number, total: number) => plan.onCheck!(done, total) } : {}),
    });
    if (plan.signal?.aborted) return { status: "interrupted", stage: "verify" };
    if (report.failed > 0) return notMeasured("verify", verifyFailure(report), report, t);
    note(`verify: ${report.passed} checks passed`);

    // 2. The experiment.
    plan.onStage?.("measure");
    await up(["k6"]);
    return await step({ t, runId, brokers, microWanted, microDeclared });
  } finally {
    plan.signal?.removeEventListener("abort", onAbort);
    await provider.stop();
  }
}

/**
 * The system and what it ran with: its version, what the provider reports
 * (its PostgreSQL, its own Kafka broker, the image), and the shared servers it
 * uses (the local Redis, Kafka), which also serve others and are not in its cost.
 */
async function systemVersion(plan: MeasurePlan, t: RunningTarget): Promise<string | undefined> {
  if (!plan.manifest) return undefined;
  const own = new Set(["postgres", ...(t.ownServices ?? [])]);
  const shared = plan.manifest.services.filter((s) => !own.has(s));
  const services = shared.length && !t.environment ? await serviceStatus(shared) : [];
  return [`${plan.manifest.system} ${plan.manifest.version}`, ...t.versions, ...services.map((s) => s.detail.split(" on ")[0])].join("; ");
}

/** Whether a GET answers 200 within 5 s (a target given by URL that implements the micro routes). */
async function answers(url: string): Promise<boolean> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(5000) });
    await res.arrayBuffer();
    return res.status === 200;
  } catch {
    return false;
  }
}
