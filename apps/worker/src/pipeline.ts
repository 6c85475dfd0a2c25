/**
 * The run pipeline: provision -> verify -> seed -> load -> audit -> store ->
 * teardown, as a plain async function of a BullMQ job. Teardown is a
 * `finally`, idempotent and keyed by the run (its target's name and the
 * machine's run lock). What a retry cannot fix throws UnrecoverableError.
 * When the job's signal aborts (the worker is stopping), the target is stopped
 * and k6 killed at once, and the run ends as `interrupted`, not `failed`.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { UnrecoverableError, type Job } from "bullmq";
import {
  cellsOf,
  manifestDigest,
  parseManifest,
  parseResult,
  repeatBusy,
  RunParameters,
  type Experiment,
  type PopulatedState,
  type Profile,
  type ResultDocument,
  type TargetManifest,
  type TargetProvider,
  type TrialTag,
} from "@sfbench/core";
import { importResult, type Db, type Prisma, type Run } from "@sfbench/db";
import { localTargetProvider } from "@sfbench/provider-local";
import { findTarget, TargetBusyError, TargetError } from "@sfbench/catalogue";
import { imageTargetProvider } from "@sfbench/provider-container";
import type { ClusterPlace } from "@sfbench/provider-kubernetes";
import { ClusterProvisionError, needsClusterMessage } from "@sfbench/provider-kubernetes/cluster";
import { kafkaBrokers, up } from "@sfbench/services";
import { buildPopulated, failedRunDocument, measureTarget, noPopulatedState, nodesToStart, writeResult, type MeasurePlan } from "@sfbench/engine";
import { dropPopulated, populatedDir, readPopulated, sweepPopulated, writePopulated } from "./populated.ts";
import { countVersionLoc, locSource } from "./count-loc.ts";
import type { RunJob } from "./queue.ts";
import { RunProgress } from "./progress.ts";
import { acquireRunLock, releaseRunLock } from "./run-lock.ts";

export interface PipelineDeps {
  db: Db;
  k6: string;
  repoRoot: string;
  resultsDir: string;
  rawRoot: string;
  /** folder of bundled target folders (tests use fixtures) */
  targetsRoot?: string;
  /** where portal campaigns keep their populated states between trials (default: populated/portal beside rawRoot) */
  populatedRoot?: string;
  /** where runs that need a cluster go (a real one, or the cluster program played by podman kube play); undefined: they wait as needs_cluster */
  cluster?: ClusterPlace;
}

export type PipelineOutcome =
  | { runId: string; status: "completed" | "failed" | "interrupted"; resultPath: string }
  | { runId: string; status: "needs-cluster" | "skipped"; reason: string };

/**
 * The node processes a run's target starts as: the run's count when it asks
 * for several; else as the experiment needs (an elastic target in scale-up
 * starts as node 0 of 1), or as its manifest starts it.
 */
function startNodes(manifest: TargetManifest, experiment: Experiment | undefined, nodes: number): number | undefined {
  return nodes > 1 ? nodes : nodesToStart(manifest, experiment ?? "throughput", undefined);
}

/** A line of the worker's log about a run. */
const log = (runId: string, message: string) => void process.stderr.write(`${new Date().toISOString()} run ${runId}: ${message}\n`);

/** A result document already written for this run (a retry after the store stage failed resumes from it). */
function existingResult(resultsDir: string, target: string, runId: string): { file: string; doc: ResultDocument } | undefined {
  const dir = join(resultsDir, target);
  if (!existsSync(dir)) return undefined;
  for (const name of readdirSync(dir).filter((n) => n.endsWith(`-${runId.slice(0, 8)}.json`))) {
    const parsed = parseResult(readFileSync(join(dir, name), "utf8"));
    if (parsed.ok && parsed.result.runId === runId) return { file: join(dir, name), doc: parsed.result };
  }
  return undefined;
}

export function createRunPipeline(deps: PipelineDeps) {
  const { db } = deps;
  const populatedRoot = deps.populatedRoot ?? join(dirname(deps.rawRoot), "populated", "portal");

  /**
   * The campaign's populated state in `dir`: built now when this is the
   * target's first trial in the campaign (the build is not a run: no
   * document, its failure logged and the trial seeds its own).
   */
  async function populatedState(provider: TargetProvider, plan: MeasurePlan, dir: string): Promise<PopulatedState | undefined> {
    const kept = readPopulated(dir);
    if (kept) return kept;
    dropPopulated(dir);
    try {
      const { runId: _trial, ...rest } = plan;
      const state = await buildPopulated(provider, { ...rest, onNote: () => {} }, dir);
      if (state) writePopulated(dir, state);
      return state;
    } catch (e) {
      dropPopulated(dir);
      if (plan.signal?.aborted) throw e;
      log(plan.runId!, `no populated state, the trial seeds its own: ${(e as Error).message}`);
      return undefined;
    }
  }

  async function failRun(runId: string, stage: string, message: string): Promise<void> {
    await db.run.update({ where: { id: runId }, data: { status: "failed", errorStage: stage, errorMessage: message, finishedAt: new Date(), stage: null } });
  }

  /** Ends a run that was stopped mid-way: a document with status "interrupted", stored like any other. */
  async function interruptRun(
    runId: string,
    target: ResultDocument["target"],
    profile: Profile,
    startedAt: Date,
    stage: string,
    signal: AbortSignal,
    tag?: TrialTag,
  ): Promise<PipelineOutcome> {
    const message = `interrupted during ${stage}: ${String(signal.reason ?? "the worker was stopped")}`;
    const doc: ResultDocument = {
      ...failedRunDocument({ runId, target, profile, startedAt, stage, message, k6: deps.k6, repoRoot: deps.repoRoot, rawDir: join(deps.rawRoot, runId) }),
      status: "interrupted",
      ...(tag ? { campaign: tag } : {}),
    };
    const file = writeResult(deps.resultsDir, doc);
    await importResult(db, doc, { resultPath: file });
    return { runId, status: "interrupted", resultPath: file };
  }

  /**
   * A campaign trial taken while the machine was busy runs again as the next
   * attempt (a new run at the end of the queue); the board counts the last
   * completed attempt of each trial.
   */
  async function repeatTrial(run: Run, doc: ResultDocument): Promise<void> {
    const attempt = (run.attempt ?? 1) + 1;
    // a retried job (the store stage failed after this) finds its repeat already queued
    if (await db.run.findFirst({ where: { campaignId: run.campaignId, trial: run.trial, systemId: run.systemId, attempt }, select: { id: true } })) return;
    const again = await db.run.create({
      data: {
        systemId: run.systemId,
        targetVersionId: run.targetVersionId,
        status: "queued",
        environmentKind: run.environmentKind,
        nodes: run.nodes,
        profile: run.profile,
        parameters: run.parameters as Prisma.InputJsonValue,
        submittedById: run.submittedById,
        campaignId: run.campaignId,
        trial: run.trial,
        round: run.round,
        attempt,
      },
      select: { id: true },
    });
    process.stderr.write(
      `${new Date().toISOString()} run ${run.id}: the machine was busy (${doc.noise?.busyBecause.join("; ")}): trial ${run.trial} of campaign ${run.campaignId} runs again as ${again.id}\n`,
    );
  }

  // three parameters: BullMQ passes an AbortSignal only to processors that declare it (worker.cancelAllJobs aborts it)
  return async function processRun(job: Job<RunJob>, _token?: string, signal?: AbortSignal): Promise<PipelineOutcome> {
    const { runId } = job.data;
    const run = await db.run.findUnique({ where: { id: runId }, include: { targetVersion: { include: { system: true } } } });
    if (!run) throw new UnrecoverableError(`run ${runId} does not exist`);
    if (run.status === "completed" || run.status === "failed" || run.status === "interrupted")
      return { runId, status: "skipped", reason: `the run is already ${run.status}` };

    const parsed = parseManifest(run.targetVersion.manifest);
    if (!parsed.ok) {
      const message = `invalid manifest: ${parsed.errors.join("; ")}`;
      await failRun(runId, "provision", message);
      throw new UnrecoverableError(message);
    }
    const params = RunParameters.safeParse(run.parameters ?? {});
    if (!params.success) {
      const message = `invalid run parameters: ${params.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`;
      await failRun(runId, "provision", message);
      throw new UnrecoverableError(message);
    }
    const manifest: TargetManifest = parsed.manifest;

    // Bundled targets run here as bundled (processes); a submitted image runs here when its archive is stored (a container); else it waits for a cluster.
    let bundledDir: string | undefined;
    try {
      const found = findTarget(manifest.name, deps.targetsRoot);
      if (manifestDigest(found.manifest) === run.targetVersion.manifestDigest) bundledDir = found.dir;
    } catch (e) {
      if (!(e instanceof TargetError)) throw e;
    }
    const bundled = bundledDir !== undefined;
    // the LOC is sfbench's count, not the submitter's; a version without a source to count keeps none
    await countVersionLoc(db, run.targetVersionId, manifest, await locSource(db, run.targetVersionId, bundledDir)).then(
      (o) =>
        void (!o.counted && o.reason !== "already counted" && process.stderr.write(`${new Date().toISOString()} run ${runId}: LOC not counted: ${o.reason}\n`)),
      (e: Error) => void process.stderr.write(`${new Date().toISOString()} run ${runId}: LOC not counted: ${e.message}\n`),
    );
    const archive = !bundled
      ? await db.upload.findFirst({ where: { targetVersionId: run.targetVersionId, kind: "image_archive" }, select: { path: true, prunedAt: true } })
      : null;
    if (archive?.prunedAt) {
      const message =
        `the image archive of ${manifest.name} ${manifest.version} was removed on ${archive.prunedAt.toISOString().slice(0, 10)} by the portal's retention ` +
        "(SFBENCH_KEEP_IMAGE_ARCHIVES: the newest versions' archives are kept); submit this version again with the same archive, or a newer version";
      await failRun(runId, "provision", message);
      throw new UnrecoverableError(message);
    }
    // one pipeline for every place: a bundled target as processes, a submitted image with its archive in podman, the rest on a cluster
    const needsCluster = run.environmentKind !== "local" || (!bundled && !archive);
    if (needsCluster && !deps.cluster) {
      const reason = needsClusterMessage(manifest.image);
      await db.run.update({ where: { id: runId }, data: { status: "needs_cluster", errorMessage: reason, stage: null } });
      return { runId, status: "needs-cluster", reason };
    }
    const provider = needsCluster
      ? deps.cluster!.provider({ runId, manifest, nodes: run.nodes, bundled, ...(archive ? { imageArchive: archive.path } : {}) })
      : archive
        ? imageTargetProvider(runId, manifest, { archive: archive.path }, { nodes: startNodes(manifest, params.data.experiment, run.nodes) })
        : localTargetProvider(manifest, { targetsRoot: deps.targetsRoot, nodes: startNodes(manifest, params.data.experiment, run.nodes) });

    const target = { name: manifest.name, version: manifest.version, system: manifest.system, manifestDigest: run.targetVersion.manifestDigest };
    const profile = run.profile as Profile;
    const cells = cellsOf(params.data);
    // a campaign's trial: its result document says so, and the board takes the campaign's median
    const tag: TrialTag | undefined = run.campaignId
      ? { campaignId: run.campaignId, trial: run.trial ?? 1, round: run.round ?? 1, attempt: run.attempt ?? 1 }
      : undefined;

    const experiment = params.data.experiment ?? "throughput";
    const seed = params.data.seed ?? 1;
    // a campaign's trial of a target whose data can be kept starts on the campaign's populated state (built by its first trial)
    const populated =
      tag && experiment === "throughput" && cells.length > 0 && !noPopulatedState(provider, manifest)
        ? populatedDir(populatedRoot, {
            campaignId: tag.campaignId,
            target: manifest.name,
            manifestDigest: target.manifestDigest,
            profile,
            cells,
            seed,
            nodes: run.nodes,
          })
        : undefined;

    await acquireRunLock(runId, manifest.name, { signal });
    const progress = new RunProgress(db, runId);
    const startedAt = new Date();
    // a campaign's copies go with its last run, before that run shows it has ended (storing its document does)
    const sweep = async () => {
      if (tag) await sweepPopulated(db, populatedRoot, runId).catch((e: Error) => log(runId, `populated states not swept: ${e.message}`));
    };
    try {
      await db.run.update({
        where: { id: runId },
        data: { status: "running", startedAt, stage: "provision", progress: 1, errorStage: null, errorMessage: null },
      });
      let result = existingResult(deps.resultsDir, manifest.name, runId);
      if (!result) {
        // the share of the load done: every cell started before the current one is finished
        const seen = new Set<string>();
        const plan: MeasurePlan = {
          runId,
          target,
          manifest,
          profile,
          chosen: params.data,
          cells,
          experiment,
          seed,
          k6: deps.k6,
          repoRoot: deps.repoRoot,
          resultsDir: deps.resultsDir,
          rawRoot: deps.rawRoot,
          nodes: run.nodes,
          ...(tag ? { campaign: tag } : {}),
          // spans for the breakdown when the target writes them and Kafka is up (a run without Kafka has no breakdown)
          kafka: () => up(["kafka"]).then(() => kafkaBrokers()),
          verifyBudgetMs: 120_000,
          // a busy machine is retried with backoff; a target that does not start (or a cluster that cannot take it) is the target's failure
          isTargetFailure: (e) => (e instanceof TargetError && !(e instanceof TargetBusyError)) || e instanceof ClusterProvisionError,
          ...(signal ? { signal } : {}),
          onNote: (m) => void (m.startsWith("tracing off") && process.stderr.write(`${new Date().toISOString()} run ${runId}: ${m}\n`)),
          onStage: (stage) => void (stage === "verify" && progress.set("verify", 5)),
          onCheck: (done, total) => void progress.set("verify", 5 + Math.round((done / total) * 5)),
          onProgress: (e) => {
            if (e.cell.includes("/")) seen.add(e.cell);
            // a run of the microbenchmarks alone has no cells to count
            void progress.event(e, cells.length ? 10 + Math.round((Math.max(0, seen.size - 1) / cells.length) * 80) : undefined);
          },
        };
        const state = populated ? await populatedState(provider, plan, populated) : undefined;
        const outcome = await measureTarget(provider, { ...plan, ...(state && populated ? { populated: { restore: populated, state } } : {}) });
        if (outcome.status === "interrupted") return await interruptRun(runId, target, profile, startedAt, outcome.stage, signal!, tag);
        if (outcome.status === "not-measured") {
          await sweep();
          await importResult(db, outcome.doc, { resultPath: outcome.file });
          throw new UnrecoverableError(`${outcome.stage}: ${outcome.doc.error?.message}`);
        }
        result = outcome;
      }
      await progress.set("store", 95);
      // the repeat is queued before this run shows completed, so that whoever follows the campaign never sees it ended without its repeat
      if (tag && repeatBusy(result.doc, tag.attempt, params.data.busyRepeats ?? 0)) await repeatTrial(run, result.doc);
      await sweep();
      await importResult(db, result.doc, { resultPath: result.file });
      return { runId, status: result.doc.status, resultPath: result.file };
    } catch (e) {
      // whatever the interruption broke (a database write racing the stopped target, ...) ends the run as interrupted
      if (signal?.aborted && !(e instanceof UnrecoverableError))
        return await interruptRun(runId, target, profile, startedAt, progress.current ?? "provision", signal, tag);
      throw e;
    } finally {
      await sweep();
      // the harness stopped what it started
      await progress.set("teardown", undefined, true).catch(() => {});
      releaseRunLock(runId);
      await progress.finish();
    }
  };
}
