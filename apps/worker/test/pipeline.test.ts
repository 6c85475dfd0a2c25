/**
 * The run pipeline through the real queue: Redis, PostgreSQL, node-postgres
 * and k6, with the in-process worker.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { Queue, Worker } from "bullmq";
import { ProgressEvent } from "@sfbench/core";
import type { Db } from "@sfbench/db";
import { runningTarget, targetPostgresDir } from "@sfbench/provider-local";
import { isAlive, k6Path, paths, redisUrl } from "@sfbench/services";
import { runOnce } from "../../../packages/cli/src/run-once.ts";
import { createRunQueue, enqueueRun, redisConnection, type RunJob } from "../src/queue.ts";
import { createWorker } from "../src/worker.ts";
import type { PipelineOutcome } from "../src/pipeline.ts";
import { BUNDLED_TARGETS, createRun, freshDb, keyPaths, manifestOf, tempDir, uniqueQueue, waitFor } from "./helpers.ts";

let db: Db;
let queue: Queue<RunJob>;
let worker: Worker<RunJob, PipelineOutcome>;
const results = tempDir("sfbench-worker-results-");
const logs: string[] = [];
/** the worker's document of the first run, which the CLI's of the same target is compared with */
let workerDoc: Record<string, unknown> | undefined;

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
    resultsDir: results,
    rawRoot: join(paths.home, "runs"),
    log: (l) => logs.push(l),
  });
});

afterAll(async () => {
  await worker.close();
  await queue.obliterate({ force: true });
  await queue.close();
  await db.$disconnect();
});

const finished = (runId: string) =>
  waitFor(
    `run ${runId} to finish`,
    async () => {
      const run = await db.run.findUniqueOrThrow({ where: { id: runId } });
      return ["completed", "failed", "needs_cluster"].includes(run.status) && run.stage === null ? run : undefined;
    },
    180_000,
    200,
  );

describe("the run pipeline", () => {
  it("takes a queued run of node-postgres to a completed run with results on the leaderboard", async () => {
    const runId = await createRun(db, manifestOf(BUNDLED_TARGETS, "node-postgres"));
    const stages = new Set<string>();
    const live: unknown[] = [];
    const watch = setInterval(async () => {
      const r = await db.run.findUnique({ where: { id: runId }, select: { stage: true, live: true } });
      if (r?.stage) stages.add(r.stage);
      if (r?.live) live.push(r.live);
    }, 100);
    await enqueueRun(queue, runId);
    const run = await finished(runId);
    clearInterval(watch);
    expect(run.status, run.errorMessage ?? "").toBe("completed");
    expect(run.progress).toBe(100);
    expect(run.resultPath).toMatch(/node-postgres\/\d{8}-\d{6}-[0-9a-f]{8}\.json$/);
    expect([...stages]).toEqual(expect.arrayContaining(["provision", "verify", "seed", "load", "audit"]));
    // the live figures are structured progress events (what the run page and submit --wait show), gone once the run ended
    const events = live.map((e) => ProgressEvent.parse(e));
    expect(events.some((e) => e.phase === "ramp" && e.cell === "checkout/uniform" && e.offeredRate! > 0 && e.live !== undefined)).toBe(true);
    expect(events.some((e) => e.phase === "stable")).toBe(true);
    expect(run.live).toBeNull();
    const cells = await db.cellResult.findMany({ where: { runId } });
    expect(cells).toHaveLength(1);
    // node-postgres promises durability: it ran on a PostgreSQL of its own with durable settings, which its cost counts, and the fingerprint says so
    expect(cells[0]!.coreSecondsPer1000).toBeGreaterThan(0);
    const environment = run.environment as { storage?: unknown; systemVersion?: string };
    expect(environment.storage).toEqual({
      postgres: { instance: "dedicated", fsync: "on", synchronous_commit: "on", full_page_writes: "on", version: expect.stringMatching(/^\d+/) },
    });
    expect(environment.systemVersion).toMatch(/^Node\.js \+ PostgreSQL \d+\.\d+\.\d+; PostgreSQL \d+/);
    workerDoc = JSON.parse(readFileSync(run.resultPath!, "utf8")) as Record<string, unknown>;
    expect((workerDoc.environment as { storage: unknown }).storage).toEqual(environment.storage);
    expect(cells[0]).toMatchObject({ workload: "checkout", distribution: "uniform" });
    // validity is the machine's verdict (a loaded machine misses the stable rate), not the pipeline's: an invalid cell must say why
    if (!cells[0]!.valid) expect(cells[0]!.invalidReason, "an invalid cell names its reason").toMatch(/\S/);
    expect(cells[0]!.sustainableRate).toBeGreaterThan(0);
    // the stored result completes the run; teardown ends with the job
    await waitFor("the job to complete", async () => (await queue.getJobState(runId)) === "completed");
    expect(runningTarget("node-postgres")).toBeUndefined();
    // and its PostgreSQL stopped with it
    const pgData = join(targetPostgresDir("node-postgres"), "data");
    expect(
      readdirSync("/proc")
        .filter((n) => /^\d+$/.test(n))
        .filter((n) => {
          try {
            return isAlive(Number(n)) && readFileSync(`/proc/${n}/cmdline`, "utf8").includes(pgData);
          } catch {
            return false;
          }
        }),
    ).toEqual([]);

    // the same run enqueued again changes nothing and gets no second result
    await queue.remove(runId);
    await enqueueRun(queue, runId);
    await waitFor("the second job to be skipped", async () => logs.find((l) => l.startsWith(`run ${runId}: skipped`)), 30_000);
    expect(readdirSync(join(results, "node-postgres"))).toHaveLength(1);
    expect(await db.cellResult.count({ where: { runId } })).toBe(1);
  });

  it("writes the same document as sfbench run for the same target: the same fields, the same cost source, storage and system version", async () => {
    expect(workerDoc, "the first test's document").toBeDefined();
    const cliResults = tempDir("sfbench-cli-results-");
    // what sfbench run prints is its document: read from the outcome, kept out of the test's log
    const printed = vi.spyOn(process.stdout, "write").mockImplementation(() => true);
    const out = await runOnce({
      cmd: "sfbench run",
      target: "node-postgres",
      json: true,
      chosen: { workloads: ["checkout"], distributions: ["uniform"] },
      cells: [{ workload: "checkout", distribution: "uniform" }],
      profile: "quick",
      experiment: "throughput",
      seed: 1,
      resultsDir: cliResults,
      k6: await k6Path(),
    }).finally(() => printed.mockRestore());
    expect(out.doc?.status, out.doc?.error?.message).toBe("completed");
    const cli = out.doc as unknown as Record<string, unknown>;
    // a cell's figures depend on what the machine allowed (a missed stable rate has no stable part): compared apart from the cells
    const shape = (d: Record<string, unknown>) => keyPaths({ ...d, cells: undefined }).filter((k) => !k.startsWith(".cells"));
    expect(shape(cli)).toEqual(shape(workerDoc!));
    const env = (d: Record<string, unknown>) => d.environment as { cost?: unknown; storage?: unknown; systemVersion?: string; nodes?: number };
    expect(env(cli).cost).toEqual(env(workerDoc!).cost);
    expect(env(cli).storage).toEqual(env(workerDoc!).storage);
    expect(env(cli).nodes).toEqual(env(workerDoc!).nodes);
    // the same servers named, whichever versions they report
    const servers = (v: string | undefined) => v?.replace(/\d+(\.\d+)*/g, "N");
    expect(servers(env(cli).systemVersion)).toBe(servers(env(workerDoc!).systemVersion));
    expect(runningTarget("node-postgres")).toBeUndefined();
  });

  it("parks a submitted image that no bundled target matches as needs-cluster", async () => {
    const manifest = { ...manifestOf(BUNDLED_TARGETS, "node-postgres"), name: "restate-submitted", image: "ghcr.io/someone/restate:1.0.0" };
    const runId = await createRun(db, manifest);
    await enqueueRun(queue, runId);
    const run = await finished(runId);
    expect(run.status).toBe("needs_cluster");
    expect(run.errorMessage).toMatch(/^this server has no cluster configured: image ghcr\.io\/someone\/restate:1\.0\.0/);
  });

  it("parks a manifest that differs from the bundled one of the same name (never runs submitted commands)", async () => {
    const manifest = { ...manifestOf(BUNDLED_TARGETS, "node-postgres"), local: { command: ["sh", "-c", "touch /tmp/sfbench-pwned"] } };
    const runId = await createRun(db, manifest);
    await enqueueRun(queue, runId);
    expect((await finished(runId)).status).toBe("needs_cluster");
    expect(existsSync("/tmp/sfbench-pwned")).toBe(false);
  });

  it("fails a run with an invalid manifest at once, without retries", async () => {
    const runId = await createRun(db, { name: "broken", system: "Broken", version: "one" });
    await enqueueRun(queue, runId);
    const run = await finished(runId);
    expect(run.status).toBe("failed");
    expect(run.errorMessage).toMatch(/^invalid manifest: version: must be a semantic version/);
    const job = await queue.getJob(runId);
    expect(job?.attemptsMade).toBe(1);
  });
});
