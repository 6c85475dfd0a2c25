export { createWorker, type WorkerOptions } from "./worker.ts";
export { createRunPipeline, type PipelineDeps, type PipelineOutcome } from "./pipeline.ts";
export { createRunQueue, enqueueRun, redisConnection, type RunJob } from "./queue.ts";
export { sweep, sweepLostRun, type SweepReport } from "./sweep.ts";
export { readEnv, type WorkerEnv } from "./env.ts";
export { dispatchQueued, startDispatcher } from "./dispatcher.ts";
