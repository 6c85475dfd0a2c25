/**
 * A campaign's trial through the worker's pipeline: the run's campaign, trial,
 * round and attempt go into its result document (and stay on the run), its
 * noise is measured, and a trial taken while the machine was busy is queued
 * once more as the next attempt. The busy machine is made on purpose: a CPU
 * burner outside the run's process tree (double-forked, so it is nobody's
 * child here) for the whole trial.
 */
import { execFileSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import type { Job } from "bullmq";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseResult } from "@sfbench/core";
import type { Db } from "@sfbench/db";
import type { RunJob } from "../src/queue.ts";
import { createRun, FIXTURE_TARGETS, freshDb, manifestOf, pipelineIn, tempDir } from "./helpers.ts";

let db: Db;
let burner: number | undefined;
const home = tempDir("sfbench-campaign-");

beforeAll(async () => {
  ({ db } = await freshDb());
});
afterAll(async () => {
  if (burner) process.kill(burner, "SIGTERM");
  await db?.$disconnect();
});

/** One core kept busy by a process this test does not parent (its pid), for at most `seconds`. */
function burn(seconds: number): number {
  const out = execFileSync("sh", ["-c", `(exec timeout ${seconds} sh -c 'while :; do :; done') >/dev/null 2>&1 & echo $!`], { encoding: "utf8" });
  return Number(out.trim());
}

describe("a campaign trial in the worker", () => {
  it("tags the document with the trial, and queues a busy trial once more as its next attempt", async () => {
    const campaignId = randomUUID();
    const runId = await createRun(db, manifestOf(FIXTURE_TARGETS, "good"), {
      parameters: { workloads: ["checkout"], distributions: ["uniform"], seed: 1, busyRepeats: 1 },
    });
    await db.run.update({ where: { id: runId }, data: { campaignId, trial: 2, round: 2, attempt: 1 } });
    const pipeline = await pipelineIn(db, home, { targetsRoot: FIXTURE_TARGETS });

    burner = burn(600);
    const outcome = await pipeline({ data: { runId } } as Job<RunJob>);
    // TERM, which timeout passes on to the loop; a KILL would end timeout alone and leave the loop spinning for good
    process.kill(burner, "SIGTERM");
    burner = undefined;

    const row = await db.run.findUniqueOrThrow({ where: { id: runId } });
    expect(outcome.status, row.errorMessage ?? "").toBe("completed");
    expect(row).toMatchObject({ campaignId, trial: 2, round: 2, attempt: 1, busy: true });
    const parsed = parseResult(readFileSync((outcome as { resultPath: string }).resultPath, "utf8"));
    if (!parsed.ok) throw new Error(parsed.errors.join("; "));
    expect(parsed.result.campaign).toEqual({ campaignId, trial: 2, round: 2, attempt: 1 });
    expect(parsed.result.noise?.busy).toBe(true);
    expect(parsed.result.noise?.busyBecause.join(" ")).toMatch(/processes outside the run used \d\.\d\d cores/);

    const again = await db.run.findMany({ where: { campaignId, id: { not: runId } } });
    expect(again).toHaveLength(1);
    expect(again[0]).toMatchObject({
      status: "queued",
      trial: 2,
      round: 2,
      attempt: 2,
      targetVersionId: row.targetVersionId,
      profile: row.profile,
      parameters: row.parameters,
    });
  }, 600_000);
});
