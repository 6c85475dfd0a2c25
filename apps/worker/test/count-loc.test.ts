/**
 * sfbench counts a target version's lines of code itself (cloc over the
 * manifest's loc globs), when the version first runs: from the bundled
 * target's folder, or from the source archive submitted with it; never from
 * what the submitter declared, and never again once counted. The runs here
 * take the pipeline's needs-cluster branch (no cluster), which is quick.
 */
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import type { Job } from "bullmq";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "@sfbench/db";
import { countLoc, locFiles } from "@sfbench/provider-local/loc";
import { createRunPipeline } from "../src/pipeline.ts";
import type { RunJob } from "../src/queue.ts";
import { BUNDLED_TARGETS, createRun, freshDb, manifestOf, tempDir } from "./helpers.ts";

let db: Db;
const bundled = manifestOf(BUNDLED_TARGETS, "node-postgres");
const folder = join(BUNDLED_TARGETS, "node-postgres");
const home = tempDir("sfbench-loc-");
let pipeline: ReturnType<typeof createRunPipeline>;
let expected: Awaited<ReturnType<typeof countLoc>>["loc"];

beforeAll(async () => {
  ({ db } = await freshDb());
  pipeline = createRunPipeline({ db, k6: "k6", repoRoot: home, resultsDir: join(home, "results"), rawRoot: join(home, "runs"), targetsRoot: BUNDLED_TARGETS });
  expected = (await countLoc(folder, bundled)).loc;
}, 120_000);
afterAll(async () => {
  await db?.$disconnect();
});

const runPipeline = (runId: string) => pipeline({ data: { runId } } as Job<RunJob>);
const versionOf = async (runId: string) => (await db.run.findUniqueOrThrow({ where: { id: runId }, include: { targetVersion: true } })).targetVersion;

describe("the LOC of a target version", () => {
  it("is counted from the bundled target's folder at its first run", async () => {
    const runId = await createRun(db, bundled, { environmentKind: "kubernetes" });
    expect((await versionOf(runId)).loc).toBeNull();
    expect((await runPipeline(runId)).status).toBe("needs-cluster");
    expect((await versionOf(runId)).loc).toEqual(expected);
    expect(Object.keys(expected).length).toBeGreaterThan(0);
  });

  it("is counted from the source archive submitted with an image, not from the declared figure", async () => {
    const manifest = { ...bundled, name: "submitted-image", image: "ghcr.io/team/submitted-image:1.0.0" };
    const runId = await createRun(db, manifest);
    const version = await versionOf(runId);
    await db.targetVersion.update({ where: { id: version.id }, data: { declaredLoc: { typescript: { app: 1, gateway: 1 } } } });
    // what `sfbench submit` uploads: the files the loc globs select, relative to target.json's folder
    const { app, gateway } = await locFiles(folder, bundled);
    const archive = join(home, "source.tar.gz");
    execFileSync("tar", ["-czf", archive, "-C", folder, ...[...app, ...gateway].map((f) => f.slice(folder.length + 1))]);
    const user = await db.user.create({ data: { email: `team-${runId}@example.com`, passwordHash: "x" } });
    await db.upload.create({
      data: { userId: user.id, kind: "source_archive", sha256: "sha256:0", size: 1, path: archive, references: [], targetVersionId: version.id },
    });
    expect((await runPipeline(runId)).status).toBe("needs-cluster");
    const counted = await versionOf(runId);
    expect(counted.loc).toEqual(expected);
    expect(counted.declaredLoc).toEqual({ typescript: { app: 1, gateway: 1 } });
  });

  it("never changes once counted: a later run of the same version leaves it", async () => {
    const manifest = { ...bundled, name: "counted-once" };
    const first = await createRun(db, manifest);
    const version = await versionOf(first);
    await db.targetVersion.update({ where: { id: version.id }, data: { loc: { go: { app: 7, gateway: 0 } } } });
    await runPipeline(first);
    const again = await createRun(db, manifest);
    await runPipeline(again);
    expect((await versionOf(again)).id).toBe(version.id);
    expect((await versionOf(again)).loc).toEqual({ go: { app: 7, gateway: 0 } });
  });

  it("stays uncounted when there is no source to count", async () => {
    const runId = await createRun(db, { ...bundled, name: "no-source", image: "ghcr.io/team/no-source:1.0.0" });
    expect((await runPipeline(runId)).status).toBe("needs-cluster");
    expect((await versionOf(runId)).loc).toBeNull();
  });
});
