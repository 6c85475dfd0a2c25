/**
 * The database is the outbox: the portal only writes queued Run rows, and the
 * dispatcher moves them into the queue (job id = run id, so moving one twice
 * is a no-op). Runs left queued by a crash or by Redis being down are picked
 * up the same way.
 */
import type { Queue } from "bullmq";
import type { Db } from "@sfbench/db";
import { enqueueRun, type RunJob } from "./queue.ts";

export async function dispatchQueued(db: Db, queue: Queue<RunJob>, attempts: number): Promise<number> {
  const queued = await db.run.findMany({ where: { status: "queued" }, orderBy: { createdAt: "asc" }, take: 100, select: { id: true } });
  let added = 0;
  for (const { id } of queued) {
    const state = await queue.getJobState(id);
    if (state === "completed" || state === "failed")
      await queue.remove(id); // a run queued again after it ended
    else if (state !== "unknown") continue;
    await enqueueRun(queue, id, attempts);
    added++;
  }
  return added;
}

/** Dispatches every `intervalMs` until stopped. */
export function startDispatcher(
  db: Db,
  queue: Queue<RunJob>,
  opts: { attempts: number; intervalMs?: number; log?: (line: string) => void },
): () => Promise<void> {
  let stopped = false;
  let running: Promise<void> = Promise.resolve();
  const tick = async () => {
    try {
      const n = await dispatchQueued(db, queue, opts.attempts);
      if (n) opts.log?.(`dispatcher: queued ${n} run(s)`);
    } catch (e) {
      opts.log?.(`dispatcher: ${(e as Error).message}`);
    }
  };
  const timer = setInterval(() => {
    if (!stopped) running = running.then(tick);
  }, opts.intervalMs ?? 1000);
  running = tick();
  return async () => {
    stopped = true;
    clearInterval(timer);
    await running;
  };
}
