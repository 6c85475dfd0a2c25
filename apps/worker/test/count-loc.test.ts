/**
 * sfbench counts a target version's lines of code itself (cloc over the
 * manifest's loc globs), when the version first runs: from the bundled
 * target's folder, or from the source archive submitted with it; never from
 * what the submitter declared, and never again once counted. A bundled
 * target's count holds the shared workspace packages it depends on that are
 * counted with targets (@sfbench/shop-pg for node-postgres). The runs here
 * take the pipeline's needs-cluster branch (no cluster), which is quick.
 */
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Job } from "bullmq";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "@sfbench/db";
import { countedWorkspaceDeps, countLoc, locFiles, type LocCounts } from "@sfbench/provider-local/loc";
import { countVersionLoc } from "../src/count-loc.ts";
import { createRunPipeline } from "../src/pipeline.ts";
import type { RunJob } from "../src/queue.ts";
import { BUNDLED_TARGETS, createRun, freshDb, manifestOf, tempDir } from "./helpers.ts";

let db: Db;
const bundled = manifestOf(BUNDLED_TARGETS, "node-postgres");
const folder = join(BUNDLED_TARGETS, "node-postgres");
const shopPg = fileURLToPath(new URL("../../../packages/shop-pg", import.meta.url));
/** A repository in small: a target depending on a flagged workspace package, an unflagged one and (for development only) another flagged one. */
const LOC_WORKSPACE = fileURLToPath(new URL("./fixtures/loc-workspace", import.meta.url));
const home = tempDir("sfbench-loc-");
let pipeline: ReturnType<typeof createRunPipeline>;
/** node-postgres's folder alone: what a source archive of its loc files holds */
let ownFolder: LocCounts;
/** node-postgres's folder and @sfbench/shop-pg, counted with its globs */
let expected: LocCounts;

function sum(a: LocCounts, b: LocCounts): LocCounts {
  const out: LocCounts = structuredClone(a);
  for (const [lang, n] of Object.entries(b) as [keyof LocCounts, { app: number; gateway: number }][]) {
    const row = (out[lang] ??= { app: 0, gateway: 0 });
    row.app += n.app;
    row.gateway += n.gateway;
  }
  return out;
}

beforeAll(async () => {
  ({ db } = await freshDb());
  pipeline = createRunPipeline({ db, k6: "k6", repoRoot: home, resultsDir: join(home, "results"), rawRoot: join(home, "runs"), targetsRoot: BUNDLED_TARGETS });
  ownFolder = (await countLoc(folder, bundled)).loc;
  expected = sum(ownFolder, (await countLoc(shopPg, bundled)).loc);
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

  it("holds, for a bundled target, the shared workspace packages it depends on (node-postgres: @sfbench/shop-pg, app and gateway apart)", () => {
    expect(countedWorkspaceDeps(folder)).toEqual([shopPg]);
    expect(expected.typescript!.gateway).toBeGreaterThan(ownFolder.typescript!.gateway);
    expect(expected.typescript!.app).toBeGreaterThan(ownFolder.typescript!.app);
  });

  it("counts a flagged runtime dependency's source with the bundled folder, not an unflagged or a development-only one", async () => {
    const target = join(LOC_WORKSPACE, "targets", "shop");
    expect(countedWorkspaceDeps(target)).toEqual([join(LOC_WORKSPACE, "shared", "counted")]);
    const manifest = { ...bundled, name: "shares-code", loc: { app: ["src/app/**/*.ts"], gateway: ["src/http/**/*.ts"] } };
    const version = await versionOf(await createRun(db, manifest));
    expect(await countVersionLoc(db, version.id, manifest, { kind: "folder", dir: target })).toEqual({ counted: true, source: "folder" });
    // own.ts 2 + shared.ts 3 app lines, gateway.ts 1 gateway line
    expect((await db.targetVersion.findUniqueOrThrow({ where: { id: version.id } })).loc).toEqual({ typescript: { app: 5, gateway: 1 } });
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
    expect(counted.loc).toEqual(ownFolder);
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
