/**
 * After the start-up sweep destroyed a dead worker's cluster stacks, their runs
 * (still marked running in the real database) end as interrupted with the
 * stage they were lost in; a run that already ended keeps its outcome.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "@sfbench/db";
import { interruptSweptRuns } from "../src/kubernetes/index.ts";
import { BUNDLED_TARGETS, createRun, freshDb, manifestOf } from "./helpers.ts";

let db: Db;

beforeAll(async () => {
  ({ db } = await freshDb());
}, 120_000);

afterAll(async () => {
  await db?.$disconnect();
});

describe("runs whose cluster stacks the sweep destroyed", () => {
  it("end as interrupted during their stage when still running, and keep their outcome when they already ended", async () => {
    const manifest = manifestOf(BUNDLED_TARGETS, "node-postgres");
    const [lost, done] = [await createRun(db, manifest, { environmentKind: "kubernetes" }), await createRun(db, manifest, { environmentKind: "kubernetes" })];
    await db.run.update({ where: { id: lost }, data: { status: "running", stage: "load", startedAt: new Date() } });
    await db.run.update({ where: { id: done }, data: { status: "completed", finishedAt: new Date() } });

    const ended = await interruptSweptRuns(db, { destroyed: [lost, done, "00000000-0000-4000-8000-000000000000"], skipped: [], failed: {} });
    expect(ended).toEqual([lost]);
    expect(await db.run.findUnique({ where: { id: lost }, select: { status: true, stage: true, errorStage: true, errorMessage: true } })).toEqual({
      status: "interrupted",
      stage: null,
      errorStage: "load",
      errorMessage: "worker lost during load: its cluster stack was destroyed by the start-up sweep",
    });
    expect((await db.run.findUnique({ where: { id: done }, select: { status: true } }))!.status).toBe("completed");
    // idempotent
    expect(await interruptSweptRuns(db, { destroyed: [lost], skipped: [], failed: {} })).toEqual([]);
  });
});
