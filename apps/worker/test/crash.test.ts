/**
 * SIGKILL the worker during each stage, then start it again: the start-up
 * sweep ends the run as interrupted ("worker lost during <stage>": the worker
 * failed, not the target), stops the target and the k6 processes it left, and
 * no run gets a result. The worker that swept one stage's run is the one
 * killed during the next stage: a worker start is seconds of module loading.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Queue } from "bullmq";
import type { Db } from "@sfbench/db";
import { runningTarget } from "@sfbench/provider-local";
import { redisUrl } from "@sfbench/services";
import { createRunQueue, enqueueRun, redisConnection, type RunJob } from "../src/queue.ts";
import { deadLock } from "../src/run-lock.ts";
import {
  createRun,
  FIXTURE_TARGETS,
  freshDb,
  manifestOf,
  portFree,
  processesOf,
  stageWithTarget,
  startWorkerProcess,
  stopWorkerProcess,
  tempDir,
  uniqueQueue,
  waitFor,
} from "./helpers.ts";

let db: Db;
let url: string;
let queue: Queue<RunJob>;
let queueName: string;
const results = tempDir("sfbench-crash-");
/** the worker that swept the last test's run, waiting for the next one */
let idle: ReturnType<typeof startWorkerProcess> | undefined;

beforeAll(async () => {
  ({ db, url } = await freshDb());
  queueName = uniqueQueue();
  queue = createRunQueue(redisConnection(redisUrl()), queueName);
});

afterAll(async () => {
  if (idle) await stopWorkerProcess(idle);
  await queue.obliterate({ force: true });
  await queue.close();
  await db.$disconnect();
});

const env = () => ({ DATABASE_URL: url, SFBENCH_QUEUE: queueName, SFBENCH_RESULTS_DIR: results, SFBENCH_TARGETS_DIR: FIXTURE_TARGETS });

describe("a worker killed mid-run", () => {
  it.each([
    ["provision", "slow-start"],
    ["verify", "good"],
    ["seed", "good"],
    ["load", "good"],
    ["audit", "good"],
  ])("during %s: the next worker ends the run as lost and leaves nothing behind", async (stage, target) => {
    const runId = await createRun(db, manifestOf(FIXTURE_TARGETS, target));
    const first = idle ?? startWorkerProcess(env());
    idle = undefined;
    await enqueueRun(queue, runId);
    const port = await stageWithTarget(db, runId, stage, target);
    first.child.kill("SIGKILL");
    await new Promise((r) => first.child.once("exit", r));

    const second = startWorkerProcess(env());
    try {
      const run = await waitFor(
        "the sweep",
        async () => {
          const r = await db.run.findUniqueOrThrow({ where: { id: runId } });
          return r.status === "interrupted" || r.status === "failed" ? r : undefined;
        },
        60_000,
        100,
      );
      expect(run.status).toBe("interrupted");
      expect(run.errorStage).toBe(stage);
      expect(run.errorMessage).toMatch(new RegExp(`^worker lost during ${stage} \\(its process \\d+ ended mid-run\\)$`));
      expect(runningTarget(target)).toBeUndefined();
      await waitFor("the target's port to be free", () => portFree(port), 10_000);
      await waitFor("the run's k6 processes to be gone", async () => processesOf(runId).length === 0, 10_000);
      // the sweep records the run as ended before it clears the dead worker's lock: the next run on this
      // machine needs the lock gone, and a loaded machine can show the record well before the lock goes
      await waitFor("the sweep to clear the lost worker's run lock", async () => deadLock() === undefined, 10_000);
      expect(await db.cellResult.count({ where: { runId } })).toBe(0);
      idle = second;
    } finally {
      if (idle !== second) await stopWorkerProcess(second);
    }
  });
});
