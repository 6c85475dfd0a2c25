/**
 * createWorker(): the BullMQ worker around the run pipeline. One job at a
 * time (and one benchmark per machine, through the run lock); infrastructure
 * errors retry with backoff; a job that gives up marks its run failed.
 */
import { Worker, type ConnectionOptions, type Job } from "bullmq";
import type { Db } from "@sfbench/db";
import { createRunPipeline, type PipelineDeps, type PipelineOutcome } from "./pipeline.ts";
import type { RunJob } from "./queue.ts";

export interface WorkerOptions extends PipelineDeps {
  connection: ConnectionOptions;
  queue: string;
  log?: (line: string) => void;
}

export function createWorker(opts: WorkerOptions): Worker<RunJob, PipelineOutcome> {
  const log = opts.log ?? ((line: string) => process.stderr.write(`${new Date().toISOString()} ${line}\n`));
  const worker = new Worker<RunJob, PipelineOutcome>(opts.queue, createRunPipeline(opts), {
    connection: opts.connection,
    concurrency: 1,
    // a benchmark step can keep the event loop busy; the lock is renewed well within this
    lockDuration: 60_000,
    // a job whose worker vanished is not silently re-run twice; the start-up sweep ends its run
    maxStalledCount: 1,
  });
  worker.on("error", (e) => log(`worker error: ${e.message}`));
  worker.on("active", (job) => log(`run ${job.data.runId}: started (attempt ${job.attemptsMade + 1})`));
  worker.on("completed", (job, result) => log(`run ${job.data.runId}: ${result.status}${"reason" in result ? ` (${result.reason})` : ""}`));
  worker.on("failed", (job: Job<RunJob> | undefined, e) => {
    if (!job) return;
    const final = job.attemptsMade >= (job.opts.attempts ?? 1) || e.name === "UnrecoverableError";
    log(`run ${job.data.runId}: ${final ? "failed" : "will retry"}: ${e.message}`);
    if (final) void markFailed(opts.db, job.data.runId, e.message).catch((err: Error) => log(`could not mark run ${job.data.runId} failed: ${err.message}`));
  });
  return worker;
}

/** Ends a run whose job gave up, unless the pipeline already stored its outcome. */
async function markFailed(db: Db, runId: string, message: string): Promise<void> {
  const run = await db.run.findUnique({ where: { id: runId }, select: { status: true, stage: true } });
  if (!run || run.status === "completed" || run.status === "failed" || run.status === "interrupted" || run.status === "needs_cluster") return;
  await db.run.update({
    where: { id: runId },
    data: { status: "failed", errorStage: run.stage ?? "provision", errorMessage: message, finishedAt: new Date(), stage: null },
  });
}
