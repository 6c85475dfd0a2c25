/**
 * Hostile targets: each run fails (or is flagged) with the named reason
 * within its time budget, and the next job runs normally.
 */
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Queue, Worker } from "bullmq";
import type { Db } from "@sfbench/db";
import { runningTarget } from "@sfbench/provider-local";
import { k6Path, paths, redisUrl } from "@sfbench/services";
import { createRunQueue, enqueueRun, redisConnection, type RunJob } from "../src/queue.ts";
import { createWorker } from "../src/worker.ts";
import type { PipelineOutcome } from "../src/pipeline.ts";
import { createRun, FIXTURE_TARGETS, freshDb, manifestOf, tempDir, uniqueQueue, waitFor } from "./helpers.ts";

let db: Db;
let queue: Queue<RunJob>;
let worker: Worker<RunJob, PipelineOutcome>;

beforeAll(async () => {
  ({ db } = await freshDb());
  const name = uniqueQueue();
  const connection = redisConnection(redisUrl());
  queue = createRunQueue(connection, name);
  worker = createWorker({
    connection,
    queue: name,
    db,
    k6: await k6Path(),
    repoRoot: paths.root,
    resultsDir: tempDir("sfbench-hostile-"),
    rawRoot: join(paths.home, "runs"),
    targetsRoot: FIXTURE_TARGETS,
    log: () => {},
  });
});

afterAll(async () => {
  await worker.close();
  await queue.obliterate({ force: true });
  await queue.close();
  await db.$disconnect();
});

async function runOf(target: string) {
  const runId = await createRun(db, manifestOf(FIXTURE_TARGETS, target));
  const started = Date.now();
  await enqueueRun(queue, runId);
  const run = await waitFor(
    `run of ${target}`,
    async () => {
      const r = await db.run.findUniqueOrThrow({ where: { id: runId } });
      return (r.status === "completed" || r.status === "failed") && r.stage === null ? r : undefined;
    },
    120_000,
    100,
  );
  // the stored result ends the run; teardown ends with the job
  await waitFor(`the job of ${target} to end`, async () => ["completed", "failed"].includes(await queue.getJobState(runId)));
  expect(runningTarget(target)).toBeUndefined();
  return { run, seconds: (Date.now() - started) / 1000 };
}

describe("hostile targets", () => {
  it.each([
    ["hangs-on-health", "provision", /^target not healthy within 4 s \(http:\/\/127\.0\.0\.1:\d+\/health: /, 20],
    // a server that answers 500 is waited for until its whole startup timeout (10 s: room for a Node start on a loaded machine) has passed
    ["five-hundred", "provision", /^target not healthy within 10 s \(.*answered 500\)/, 30],
    [
      "trickle",
      "verify",
      /conformance checks failed: health\.answers-200 \(GET \/health: no complete answer within 10000 ms \(status 200 arrived, the body did not finish\)\)/,
      30,
    ],
    ["wrong-results", "verify", /conformance checks failed: checkout\.total \(total of 2 x 3 \+ 3 x 5: expected 21/, 30],
    ["no-work", "verify", /checkout\.retracts-stock \(stocks after buying 2 of 10 and 3 of 10: expected \[8,7\], got \[10,10\]\)/, 30],
  ])("a target that %s fails at %s with the reason, in time", async (target, stage, reason, budgetS) => {
    const { run, seconds } = await runOf(target);
    expect(run.status).toBe("failed");
    expect(run.errorStage).toBe(stage);
    expect(run.errorMessage, run.errorMessage ?? "").toMatch(reason);
    expect(seconds).toBeLessThan(budgetS);
    expect(await db.cellResult.count({ where: { runId: run.id } })).toBe(0);
  });

  it("runs the next job normally after the hostile ones", async () => {
    const { run } = await runOf("good");
    expect(run.status, run.errorMessage ?? "").toBe("completed");
    expect(await db.cellResult.count({ where: { runId: run.id } })).toBe(1);
  });
});
