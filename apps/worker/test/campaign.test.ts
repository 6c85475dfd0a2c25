/**
 * A campaign's trial through the worker's pipeline: the run's campaign, trial,
 * round and attempt go into its result document (and stay on the run), its
 * noise is measured, and a trial taken while the machine was busy is queued
 * once more as the next attempt. The busy machine is made on purpose: a CPU
 * burner outside the run's process tree (double-forked, so it is nobody's
 * child here) for the whole trial. And the worker's schedule of the
 * operator's reference campaign, over the same database.
 */
import { execFileSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import type { Job } from "bullmq";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseResult, RunParameters } from "@sfbench/core";
import type { Db } from "@sfbench/db";
import type { RunJob } from "../src/queue.ts";
import { queueReferenceCampaign, type ReferenceSchedule } from "../src/reference-campaign.ts";
import { BUNDLED_TARGETS, createRun, FIXTURE_TARGETS, freshDb, manifestOf, pipelineIn, tempDir } from "./helpers.ts";

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

describe("the scheduled reference campaign", () => {
  const schedule: ReferenceSchedule = { everyHours: 24, trials: 2, profile: "quick", operatorEmail: "ops@example.com" };
  const HOUR = 3_600_000;
  const finish = (campaignId: string) => db.run.updateMany({ where: { campaignId }, data: { status: "completed" } });

  it("says why it queues nothing: no schedule, no operator, no reference", async () => {
    const at = new Date("2026-12-01T00:00:00Z");
    expect(await queueReferenceCampaign(db, { ...schedule, everyHours: 0 }, at)).toEqual({ skipped: "no schedule (SFBENCH_REFERENCE_EVERY_HOURS is 0)" });
    expect(await queueReferenceCampaign(db, { ...schedule, operatorEmail: undefined }, at)).toMatchObject({
      skipped: expect.stringMatching(/^no operator: set SFBENCH_OPERATOR_EMAIL/),
    });
    expect(await queueReferenceCampaign(db, schedule, at)).toMatchObject({
      skipped: expect.stringMatching(/^no operator account for ops@example\.com yet \(npm run operator/),
    });
    // an account with the address that never became the operator does not submit it either
    await db.user.create({ data: { email: "ops@example.com", passwordHash: "x" } });
    expect(await queueReferenceCampaign(db, schedule, at)).toMatchObject({ skipped: expect.stringMatching(/^no operator account/) });
    await db.user.update({ where: { email: "ops@example.com" }, data: { operatorSince: at } });
    await createRun(db, manifestOf(FIXTURE_TARGETS, "slow-start"));
    expect(await queueReferenceCampaign(db, schedule, at)).toEqual({
      skipped: "the reference node-postgres is not registered (sfbench submit --register-only)",
    });
  });

  it("queues every registered system beside the reference as the operator, once per period, never while one is unfinished, never twice at once", async () => {
    await createRun(db, manifestOf(BUNDLED_TARGETS, "node-postgres"));
    const systems = (await db.system.findMany({ where: { versions: { some: {} } }, select: { slug: true } })).map((s) => s.slug).sort();
    expect(systems).toContain("node-postgres");
    expect(systems.length).toBeGreaterThanOrEqual(2);
    const operator = await db.user.findUniqueOrThrow({ where: { email: "ops@example.com" } });

    const t0 = new Date("2026-12-02T00:00:00Z");
    const first = await queueReferenceCampaign(db, schedule, t0);
    if (!("queued" in first)) throw new Error(first.skipped);
    const { campaignId, runs } = first.queued;
    // every round one trial of each system, in an order of its own
    expect(
      runs
        .filter((r) => r.round === 1)
        .map((r) => r.system)
        .sort(),
    ).toEqual(systems);
    expect(
      runs
        .filter((r) => r.round === 2)
        .map((r) => r.system)
        .sort(),
    ).toEqual(systems);
    const rows = await db.run.findMany({ where: { campaignId }, orderBy: { createdAt: "asc" } });
    expect(rows.map((r) => r.id)).toEqual(runs.map((r) => r.runId));
    for (const row of rows) {
      expect(row).toMatchObject({ status: "queued", submittedById: operator.id, profile: "quick", attempt: 1, environmentKind: "local" });
      // what the pipeline reads: valid parameters, every cell, marked as the reference campaign's
      expect(RunParameters.parse(row.parameters)).toEqual({ seed: 1, busyRepeats: 1, referenceCampaign: true });
    }

    expect(await queueReferenceCampaign(db, schedule, new Date(t0.getTime() + 30 * HOUR))).toEqual({
      skipped: `the last reference campaign has ${runs.length} run(s) queued or running`,
    });
    await finish(campaignId);
    expect(await queueReferenceCampaign(db, schedule, new Date(t0.getTime() + 1 * HOUR))).toEqual({
      skipped: `the next reference campaign is due at ${new Date(t0.getTime() + 24 * HOUR).toISOString()}`,
    });

    // two workers looking at once queue one campaign
    const due = new Date(t0.getTime() + 25 * HOUR);
    const both = await Promise.all([queueReferenceCampaign(db, schedule, due), queueReferenceCampaign(db, schedule, due)]);
    const queued = both.filter((o) => "queued" in o);
    expect(queued).toHaveLength(1);
    expect(both.filter((o) => "skipped" in o)).toEqual([{ skipped: `the last reference campaign has ${runs.length} run(s) queued or running` }]);
  });
});
