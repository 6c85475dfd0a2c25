/**
 * Stop the worker (SIGTERM or SIGINT, as the demo's Ctrl-C and a service
 * manager do) during each stage: it stops the target and k6 at once, ends the
 * run as interrupted (kept with its stage and reason, not failed, no numbers,
 * never on the leaderboard) and exits 0. A second worker does not run it
 * again; it is the worker stopped during the next stage, since a worker start
 * is seconds of module loading.
 */
import { existsSync, readFileSync } from "node:fs";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Queue } from "bullmq";
import { parseResult } from "@sfbench/core";
import type { Db } from "@sfbench/db";
import { runningTarget } from "@sfbench/provider-local";
import { redisUrl } from "@sfbench/services";
import { createRunQueue, enqueueRun, redisConnection, type RunJob } from "../src/queue.ts";
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
const results = tempDir("sfbench-interrupt-");
/** the worker started after the last test's stop, waiting for the next run */
let idle: ReturnType<typeof startWorkerProcess> | undefined;
/** the worker a test signals; one left running by a failed test would go on with its run beside the next test's */
let current: ReturnType<typeof startWorkerProcess> | undefined;

beforeAll(async () => {
  ({ db, url } = await freshDb());
  queueName = uniqueQueue();
  queue = createRunQueue(redisConnection(redisUrl()), queueName);
});

afterEach(async () => {
  if (current && current !== idle) await stopWorkerProcess(current);
  current = undefined;
});

afterAll(async () => {
  if (idle) await stopWorkerProcess(idle);
  await queue.obliterate({ force: true });
  await queue.close();
  await db.$disconnect();
});

const env = () => ({ DATABASE_URL: url, SFBENCH_QUEUE: queueName, SFBENCH_RESULTS_DIR: results, SFBENCH_TARGETS_DIR: FIXTURE_TARGETS });

describe("a worker stopped mid-run", () => {
  it.each([
    ["provision", "slow-start", "SIGINT"],
    ["verify", "good", "SIGTERM"],
    ["seed", "good", "SIGTERM"],
    ["load", "good", "SIGINT"],
    ["audit", "good", "SIGTERM"],
  ] as const)("during %s: ends the run as interrupted at once, leaves nothing behind and exits 0", async (stage, target, signal) => {
    const runId = await createRun(db, manifestOf(FIXTURE_TARGETS, target));
    const worker = (current = idle ?? startWorkerProcess(env()));
    idle = undefined;
    await enqueueRun(queue, runId);
    const port = await stageWithTarget(db, runId, stage, target);
    const exited = new Promise<number | null>((r) => worker.child.once("exit", (code) => r(code)));
    const signalledAt = performance.now();
    worker.child.kill(signal);
    expect(await exited, worker.output()).toBe(0);
    // well within the demo's grace period before it would SIGKILL the worker
    expect(performance.now() - signalledAt).toBeLessThan(25_000);
    expect(worker.output()).toContain(`${signal}: interrupting the current run (it ends as interrupted), then stopping`);

    const run = await db.run.findUniqueOrThrow({ where: { id: runId }, include: { document: true } });
    expect(run.status, `${run.errorStage}: ${run.errorMessage}\n${worker.output()}`).toBe("interrupted");
    expect(run.errorMessage).toMatch(new RegExp(`^interrupted during .+: the worker was stopped \\(${signal}\\)$`));
    if (stage === "provision" || stage === "verify") expect(run.errorStage).toBe(stage);
    expect(run.stage).toBeNull();
    expect(run.finishedAt).not.toBeNull();
    expect(await db.cellResult.count({ where: { runId } })).toBe(0);
    // the document is kept (append-only) and says interrupted
    expect(run.resultPath && existsSync(run.resultPath)).toBeTruthy();
    const doc = parseResult(readFileSync(run.resultPath!, "utf8"));
    expect(doc.ok && doc.result.status).toBe("interrupted");

    expect(runningTarget(target)).toBeUndefined();
    await waitFor("the target's port to be free", () => portFree(port), 10_000);
    expect(processesOf(runId)).toEqual([]);

    // a worker started afterwards does not run it again
    const next = startWorkerProcess(env());
    try {
      await waitFor("the next worker to be ready", async () => /worker ready/.test(next.output()), 60_000, 100);
      await new Promise((r) => setTimeout(r, 2_000));
      expect((await db.run.findUniqueOrThrow({ where: { id: runId } })).status).toBe("interrupted");
      expect(runningTarget(target)).toBeUndefined();
      idle = next;
    } finally {
      if (idle !== next) await stopWorkerProcess(next);
    }
  });
});
