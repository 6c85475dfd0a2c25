/** The queue of runs: one job per run, keyed by the run id (adding it twice is a no-op). */
import { Queue, type ConnectionOptions } from "bullmq";

export interface RunJob {
  runId: string;
}

export function createRunQueue(connection: ConnectionOptions, name: string): Queue<RunJob> {
  return new Queue<RunJob>(name, { connection });
}

export async function enqueueRun(queue: Queue<RunJob>, runId: string, attempts = 3): Promise<void> {
  await queue.add(
    "run",
    { runId },
    {
      jobId: runId,
      attempts,
      backoff: { type: "exponential", delay: 5_000 },
      removeOnComplete: { count: 1000 },
      removeOnFail: { count: 1000 },
    },
  );
}

/** Parses a Redis URL into BullMQ connection options (BullMQ needs maxRetriesPerRequest: null). */
export function redisConnection(url: string): ConnectionOptions {
  const u = new URL(url);
  return { host: u.hostname, port: Number(u.port || 6379), ...(u.password ? { password: decodeURIComponent(u.password) } : {}), maxRetriesPerRequest: null };
}
