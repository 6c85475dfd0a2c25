import { randomUUID } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createDb, ImportError, importPath, importResult, migrate, ResultConflictError, type CellHistograms, type Db, type StepRow } from "../src/index.ts";
import type { ResultDocumentInput } from "@sfbench/core";
import { failedDoc, nodePostgresManifest, resultDoc, testDatabase, type TestDatabase } from "./helpers.ts";

let test: TestDatabase;
let db: Db;
let dir: string;
beforeAll(async () => {
  test = await testDatabase();
  await migrate(test.url);
  db = createDb(test.url);
  dir = await mkdtemp(path.join(tmpdir(), "sfbench-import-"));
});
afterAll(async () => {
  await db?.$disconnect();
  await test?.drop();
  if (dir) await rm(dir, { recursive: true, force: true });
});
beforeEach(async () => {
  await db.system.deleteMany(); // cascades to versions, runs, documents and cells
});

const counts = async () => ({
  systems: await db.system.count(),
  versions: await db.targetVersion.count(),
  runs: await db.run.count(),
  documents: await db.runDocument.count(),
  cells: await db.cellResult.count(),
});

describe("importResult", () => {
  it("stores a completed run: system, target version, run, its document and one row per cell", async () => {
    const doc = resultDoc();
    const { manifest, digest } = nodePostgresManifest();
    expect(await importResult(db, doc, { manifest, resultPath: "/results/a.json" })).toEqual({ status: "imported", runId: doc.runId });

    const run = await db.run.findUniqueOrThrow({
      where: { id: doc.runId },
      include: { system: true, targetVersion: true, document: true, cells: { orderBy: { workload: "asc" } } },
    });
    expect(run.system).toMatchObject({ slug: "node-postgres", name: "Node.js + PostgreSQL", ownerId: null, description: manifest.description });
    expect(run.targetVersion).toMatchObject({ version: "0.1.0", manifestDigest: digest, image: manifest.image, loc: null });
    expect(run.targetVersion.manifest).toEqual(manifest);
    expect(run).toMatchObject({
      status: "completed",
      progress: 100,
      environmentKind: "local",
      nodes: 1,
      profile: "quick",
      seed: 42n,
      errorStage: null,
      resultPath: "/results/a.json",
      startedAt: new Date("2026-11-22T06:00:00.000Z"),
    });
    expect(run.document?.document).toMatchObject({ runId: doc.runId, cells: [{ workload: "checkout" }, { workload: "analytics" }] });

    const [checkout, analytics] = run.cells;
    expect(checkout).toMatchObject({
      workload: "checkout",
      distribution: "zipf",
      seed: 42n,
      valid: true,
      maxMovingAvg10s: 812.4,
      sustainableRate: 800,
      offeredRate: 640,
      achievedRate: 639.9,
      errorRate: 0.001,
      p50: 4,
      p99: 10,
      p999: 10,
      throughputPerCore: 120.5,
      peakRssBytes: 6_000_000_000n,
      anomaliesTotal: 2,
      anomalies: { kinds: { "negative-stock": 0, "lost-update": 2 }, total: 2 },
    });
    const steps = checkout!.steps as StepRow[];
    expect(steps.map((s) => s.scenario)).toEqual(["step_0", "step_1"]);
    expect(steps[0]).not.toHaveProperty("histogram");
    const histograms = checkout!.histograms as unknown as CellHistograms;
    expect(histograms.steps).toEqual([expect.stringMatching(/^HISTF/), null]);
    expect(Object.keys(histograms.byCartSize ?? {})).toEqual(["2"]);
    expect(checkout!.latencyByTag).toMatchObject({ byCartSize: { "2": { requests: 10 } } });
    expect(checkout!.series).toHaveLength(2);
    expect(analytics).toMatchObject({
      valid: false,
      invalidReason: "the load generator was the bottleneck",
      maxMovingAvg10s: null,
      p99: null,
      peakRssBytes: null,
    });
  });

  it("judges the cells again from their numbers instead of trusting the document's flags (a tampered document ranks nothing)", async () => {
    const honest = resultDoc();
    const c = honest.cells[0]!;
    c.maxThroughput!.knee = { stoppedBecause: "resolution-reached", firstUnsustainableRate: 860, resolution: 0.075, targetResolution: 0.1 };
    c.maxThroughput!.steps = [c.maxThroughput!.steps![0]!, { ...c.maxThroughput!.steps![1]!, offeredRate: 860 }];
    c.anomalies = { kinds: { "stock-drift": 0 }, total: 0 };
    await importResult(db, honest);
    expect(await db.cellResult.findFirstOrThrow({ where: { runId: honest.runId, workload: "checkout" } })).toMatchObject({
      valid: true,
      ranked: true,
      unrankedBecause: null,
      sustainableRate: 800,
      kneeResolution: 0.075,
    });

    // the same numbers with a stable phase that failed 5% of its requests, a higher rate claimed than
    // the steps show, and a knee resolution that the steps do not give: still "valid: true" on paper
    const tampered = resultDoc();
    const t = tampered.cells[0]!;
    t.maxThroughput!.knee = { stoppedBecause: "resolution-reached", firstUnsustainableRate: 1650, resolution: 0.03, targetResolution: 0.1 };
    t.maxThroughput!.sustainableRate = 1600;
    t.stable!.errorRate = 0.05;
    t.anomalies = { kinds: { "stock-drift": 0 }, total: 0 };
    await importResult(db, tampered);
    const row = await db.cellResult.findFirstOrThrow({ where: { runId: tampered.runId, workload: "checkout" } });
    expect(row).toMatchObject({ valid: false, ranked: false, sustainableRate: 800, kneeResolution: 1 });
    expect(row.invalidReason).toContain("claims a sustainable rate of 1600/s, its steps show 800/s");
    expect(row.invalidReason).toContain("stable phase: error rate 5%");
    // the stored document is kept exactly as it came (append-only); only the board's reading of it is judged
    const stored = await db.runDocument.findUniqueOrThrow({ where: { runId: tampered.runId } });
    expect((stored.document as { cells: { valid: boolean }[] }).cells[0]!.valid).toBe(true);
  });

  it("stores no cost per 1000 for a cell whose stable phase completed nothing: unknown, not free", async () => {
    const legacy = resultDoc();
    legacy.cells[0]!.cost!.coreSecondsPer1000 = 0; // what documents wrote before the field could be absent
    const absent = resultDoc();
    delete absent.cells[0]!.cost!.coreSecondsPer1000;
    for (const d of [legacy, absent]) {
      await importResult(db, d);
      const row = await db.cellResult.findFirstOrThrow({ where: { runId: d.runId, workload: "checkout" } });
      expect(row.coreSecondsPer1000).toBeNull();
      expect(row.throughputPerCore).not.toBeNull();
    }
  });

  it("does not rank a cell whose audit found anomalies, whatever its knee", async () => {
    const doc = resultDoc();
    doc.cells[0]!.maxThroughput!.knee = { stoppedBecause: "resolution-reached", firstUnsustainableRate: 860, resolution: 0.075, targetResolution: 0.1 };
    doc.cells[0]!.maxThroughput!.steps![1]!.offeredRate = 860;
    await importResult(db, doc);
    expect(await db.cellResult.findFirstOrThrow({ where: { runId: doc.runId, workload: "checkout" } })).toMatchObject({
      valid: true,
      ranked: false,
      unrankedBecause: "the audit found 2 anomalies (lost-update 2)",
    });
  });

  it("stores how the knee search went, so the leaderboard can rank only knees known to 10%", async () => {
    const doc = resultDoc();
    doc.cells[0]!.maxThroughput!.knee = { stoppedBecause: "resolution-reached", firstUnsustainableRate: 860, resolution: 0.075, targetResolution: 0.1 };
    doc.cells[0]!.maxThroughput!.steps![1]!.offeredRate = 860;
    await importResult(db, doc);
    const cells = await db.cellResult.findMany({ where: { runId: doc.runId }, orderBy: { workload: "asc" } });
    expect(cells[0]).toMatchObject({ workload: "checkout", kneeResolution: 0.075, kneeStoppedBecause: "resolution-reached" });
    // a document written before the search bisected: no resolution, so never ranked
    expect(cells[1]).toMatchObject({ workload: "analytics", kneeResolution: null });
  });

  it("stores a trial's campaign tag, whether the machine was busy, and the machine class; a single run has no tag", async () => {
    const campaignId = randomUUID();
    const noise = {
      loadAverage: { start: [1.2, 1, 0.9], end: [1.4, 1.1, 0.9] },
      wallS: 300,
      cpus: 8,
      runCores: 3.1,
      outsideCores: 0.6,
      stealShare: 0,
      thresholds: { outsideCores: 0.25, stealShare: 0.05 },
      busy: true,
      busyBecause: ["processes outside the run used 0.60 cores on average (more than 0.25)"],
    };
    const trial = resultDoc({ campaign: { campaignId, trial: 2, round: 2, attempt: 3 }, noise } as Partial<ResultDocumentInput>);
    const single = resultDoc();
    await importResult(db, trial);
    await importResult(db, single);
    expect(await db.run.findUniqueOrThrow({ where: { id: trial.runId } })).toMatchObject({
      campaignId,
      trial: 2,
      round: 2,
      attempt: 3,
      busy: true,
      machineClass: "8 cores, AMD EPYC, 15 GiB",
    });
    expect(await db.run.findUniqueOrThrow({ where: { id: single.runId } })).toMatchObject({
      campaignId: null,
      trial: null,
      round: null,
      attempt: null,
      busy: null,
      machineClass: "8 cores, AMD EPYC, 15 GiB",
    });
  });

  it("skips a document that is already stored, and changes nothing", async () => {
    const doc = resultDoc();
    await importResult(db, doc);
    const before = await db.run.findUniqueOrThrow({ where: { id: doc.runId }, include: { document: true } });
    // same document, keys in another order: still the same document
    const reordered = Object.fromEntries(Object.entries(doc).reverse()) as typeof doc;
    expect(await importResult(db, reordered)).toEqual({ status: "skipped", runId: doc.runId });
    expect(await counts()).toEqual({ systems: 1, versions: 1, runs: 1, documents: 1, cells: 2 });
    expect(await db.run.findUniqueOrThrow({ where: { id: doc.runId }, include: { document: true } })).toEqual(before);
  });

  it("refuses a different document with the same runId and keeps the original", async () => {
    const doc = resultDoc();
    await importResult(db, doc);
    const changed = resultDoc({ runId: doc.runId, finishedAt: "2026-11-22T06:20:00.000Z" });
    const error = await importResult(db, changed).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ResultConflictError);
    expect((error as Error).message).toMatch(new RegExp(`run ${doc.runId} already has a different result document .*append-only`));
    const run = await db.run.findUniqueOrThrow({ where: { id: doc.runId }, include: { document: true } });
    expect(run.finishedAt).toEqual(new Date("2026-11-22T06:10:00.000Z"));
    expect(run.document?.document).toMatchObject({ finishedAt: "2026-11-22T06:10:00.000Z" });
    expect(await counts()).toEqual({ systems: 1, versions: 1, runs: 1, documents: 1, cells: 2 });
  });

  it("writes nothing for an invalid document and names the field", async () => {
    const doc = resultDoc();
    (doc.cells[0]!.stable!.latency as { p99: unknown }).p99 = "slow";
    await expect(importResult(db, doc)).rejects.toThrow(/^invalid result document: cells\.0\.stable\.latency\.p99: /);
    const twice = resultDoc();
    twice.cells.push({ ...twice.cells[0]! });
    await expect(importResult(db, twice)).rejects.toThrow(/cells\.2: a second checkout\/zipf cell/);
    expect(await counts()).toEqual({ systems: 0, versions: 0, runs: 0, documents: 0, cells: 0 });
  });

  it("refuses a manifest that is not the run's", async () => {
    const { manifest } = nodePostgresManifest();
    await expect(importResult(db, resultDoc(), { manifest: { ...manifest, version: "9.9.9" } })).rejects.toThrow(ImportError);
    expect(await counts()).toMatchObject({ runs: 0 });
  });

  it("stores a failed run with its error and stage and without cell numbers", async () => {
    const doc = failedDoc({ cells: resultDoc().cells });
    await importResult(db, doc);
    const run = await db.run.findUniqueOrThrow({ where: { id: doc.runId }, include: { cells: true, document: true } });
    expect(run).toMatchObject({ status: "failed", stage: "verify", errorStage: "verify", errorMessage: "12 of 116 conformance checks failed" });
    expect(run.cells).toEqual([]);
    expect(run.document).not.toBeNull();
  });

  it("stores an interrupted run with its stage and reason, without cell numbers, and keeps it off the leaderboard", async () => {
    const doc = resultDoc({ status: "interrupted", error: { stage: "load", message: "interrupted during load: the worker was stopped (SIGTERM)" } });
    await importResult(db, doc);
    const run = await db.run.findUniqueOrThrow({ where: { id: doc.runId }, include: { cells: true, document: true } });
    expect(run).toMatchObject({ status: "interrupted", errorStage: "load", errorMessage: "interrupted during load: the worker was stopped (SIGTERM)" });
    expect(run.cells).toEqual([]);
    expect(run.document).not.toBeNull();
    // the board reads completed runs only (apps/web leaderboard-data), and this one has no cell to show
    expect(await db.run.count({ where: { status: "completed" } })).toBe(0);
  });

  it("completes a run that a submission queued, and refuses a document for another target", async () => {
    const system = await db.system.create({ data: { slug: "node-postgres", name: "Node.js + PostgreSQL" } });
    const version = await db.targetVersion.create({ data: { systemId: system.id, version: "0.1.0", manifestDigest: nodePostgresManifest().digest } });
    const queued = await db.run.create({
      data: {
        systemId: system.id,
        targetVersionId: version.id,
        status: "running",
        stage: "load",
        progress: 60,
        environmentKind: "local",
        nodes: 1,
        profile: "quick",
      },
    });
    const other = resultDoc({ runId: queued.id, target: { name: "restate", version: "1.0.0", system: "Restate", manifestDigest: `sha256:${"e".repeat(64)}` } });
    await expect(importResult(db, other)).rejects.toThrow(/was created for node-postgres/);

    expect(await importResult(db, resultDoc({ runId: queued.id }))).toEqual({ status: "imported", runId: queued.id });
    const run = await db.run.findUniqueOrThrow({ where: { id: queued.id }, include: { cells: true } });
    expect(run).toMatchObject({ status: "completed", progress: 100, stage: null });
    expect(run.cells).toHaveLength(2);
    expect(await counts()).toMatchObject({ systems: 1, versions: 1, runs: 1 });
  });

  it("shows the display name and description of a version once a run of it completes (verified), never of a failed one", async () => {
    const system = await db.system.create({ data: { slug: "node-postgres", name: "Old name", description: "Old description." } });
    const { manifest, digest } = nodePostgresManifest();
    const version = await db.targetVersion.create({ data: { systemId: system.id, version: "0.1.0", manifestDigest: digest, manifest: manifest as object } });
    const queued = () =>
      db.run.create({ data: { systemId: system.id, targetVersionId: version.id, status: "queued", environmentKind: "local", nodes: 1, profile: "quick" } });
    await importResult(db, failedDoc({ runId: (await queued()).id }));
    expect(await db.system.findUniqueOrThrow({ where: { id: system.id } })).toMatchObject({ name: "Old name", description: "Old description." });
    await importResult(db, resultDoc({ runId: (await queued()).id }));
    expect(await db.system.findUniqueOrThrow({ where: { id: system.id } })).toMatchObject({
      name: "Node.js + PostgreSQL",
      description: manifest.description,
      repository: manifest.repository ?? null,
    });
  });

  it("imports a document once when two importers race", async () => {
    const doc = resultDoc();
    const outcomes = await Promise.all([importResult(db, doc), importResult(db, doc), importResult(db, doc)]);
    expect(outcomes.map((o) => o.status).sort()).toEqual(["imported", "skipped", "skipped"]);
    expect(await counts()).toEqual({ systems: 1, versions: 1, runs: 1, documents: 1, cells: 2 });
  });
});

describe("importPath", () => {
  it("imports a directory file by file, reporting a bad file with its name and field", async () => {
    const good = resultDoc();
    const bad = resultDoc();
    (bad.environment as { kind: string }).kind = "cloud";
    await writeFile(path.join(dir, "a-good.json"), JSON.stringify(good));
    await writeFile(path.join(dir, "b-bad.json"), JSON.stringify(bad));
    await writeFile(path.join(dir, "c-not-json.json"), "{");
    const summary = await importPath(db, dir);
    expect(summary.imported).toEqual([{ file: path.join(dir, "a-good.json"), runId: good.runId }]);
    expect(summary.skipped).toEqual([]);
    expect(summary.failed).toEqual([
      { file: path.join(dir, "b-bad.json"), error: expect.stringMatching(/^environment\.kind: /) },
      { file: path.join(dir, "c-not-json.json"), error: expect.stringMatching(/^\(root\): not valid JSON/) },
    ]);
    expect(await counts()).toMatchObject({ runs: 1 });
    const again = await importPath(db, path.join(dir, "a-good.json"));
    expect(again).toEqual({ imported: [], skipped: [{ file: path.join(dir, "a-good.json"), runId: good.runId }], failed: [] });
  });

  it("names a path that does not exist", async () => {
    await expect(importPath(db, path.join(dir, `missing-${randomUUID()}`))).rejects.toThrow(/cannot read .*missing-.*: ENOENT/);
  });
});
