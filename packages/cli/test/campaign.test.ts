/**
 * A tiny campaign end to end: node-postgres under two names of its own (so it
 * never meets another run of node-postgres on this machine), two rounds,
 * real PostgreSQL and real k6, with the quick profile shortened further.
 * Checks the campaign document, the trials' documents and the statistics,
 * and that every trial started on a copy of its target's populated state,
 * built once before the first round, and audited clean against its records.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { median, parseCampaign, parseCpuList, parseResult, type CampaignDocument, type ResultDocument } from "@sfbench/core";
import { findTarget } from "@sfbench/catalogue";
import { k6Path, paths } from "@sfbench/services";
import { PROFILE_SETTINGS, readAuditRecords } from "@sfbench/engine";
import { campaign, type CampaignOutcome } from "../src/campaign-run.ts";
import { campaignMarkdown, campaignTable } from "../src/campaign-table.ts";

/** ports of this test's own (the range given to the campaign tests) */
const PORTS = { "campaign-a": 19401, "campaign-b": 19402 } as const;
const TARGETS = Object.keys(PORTS);

/** node-postgres's folder under both names in one targets root, target.json with the name and port changed, the rest linked */
function copies(): string {
  const from = findTarget("node-postgres").dir;
  mkdirSync(join(paths.home, "tmp"), { recursive: true });
  const root = mkdtempSync(join(paths.home, "tmp", "campaign-"));
  for (const [name, port] of Object.entries(PORTS)) {
    const dir = join(root, name);
    mkdirSync(dir);
    for (const entry of readdirSync(from)) if (entry !== "target.json") symlinkSync(join(from, entry), join(dir, entry));
    writeFileSync(join(dir, "target.json"), JSON.stringify({ ...JSON.parse(readFileSync(join(from, "target.json"), "utf8")), name, port }));
  }
  return root;
}

describe("sfbench campaign over two targets, two rounds", () => {
  const results = mkdtempSync(join(tmpdir(), "sfbench-campaign-"));
  let root = "";
  let outcome: CampaignOutcome;
  let trials: ResultDocument[];

  beforeAll(async () => {
    root = copies();
    const quick = PROFILE_SETTINGS.quick;
    outcome = await campaign({
      kind: "campaign",
      targets: TARGETS,
      trials: 2,
      // every trial on a shared machine may be busy: repeating them here would only double the test
      busyRepeats: 0,
      orderSeed: 11,
      reference: "campaign-a",
      resultsRoot: results,
      targetsRoot: root,
      run: {
        cmd: "sfbench campaign",
        noTrace: true,
        chosen: { workloads: ["checkout", "analytics"], distributions: ["uniform"] },
        cells: [
          { workload: "checkout", distribution: "uniform" },
          { workload: "analytics", distribution: "uniform" },
        ],
        profile: "quick",
        experiment: "throughput",
        seed: 1,
        k6: await k6Path(),
        settings: {
          products: 200,
          populate: 300,
          stepS: 2,
          stableS: 2,
          auditSample: 50,
          coPurchaseSample: 10,
          knee: { ...quick.knee, maxCoarseSteps: 2 },
          // no warm-up load before the search: the campaign's machinery is what this test is about, `sfbench run`'s test has the procedure
          procedure: { ...quick.procedure, warmupS: 0 },
        },
      },
    });
    trials = outcome.doc.trials.map((t) => {
      const parsed = parseResult(JSON.parse(readFileSync(join(outcome.dir, t.document), "utf8")));
      if (!parsed.ok) throw new Error(parsed.errors.join("\n"));
      return parsed.result;
    });
  }, 900_000);

  afterAll(() => {
    rmSync(results, { recursive: true, force: true });
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it("writes a valid campaign document with every target once in every round, in the seeded order", () => {
    const doc: CampaignDocument = outcome.doc;
    expect(parseCampaign(JSON.parse(readFileSync(outcome.file, "utf8"))).ok).toBe(true);
    expect(outcome.file).toMatch(/\/campaigns\/\d{8}-\d{6}-[0-9a-f]{8}\/campaign\.json$/);
    expect(doc).toMatchObject({
      kind: "campaign",
      status: "completed",
      profile: "quick",
      orderSeed: 11,
      trialsPerTarget: 2,
      reference: "campaign-a",
      busyRepeats: 0,
      busyRepeated: 0,
    });
    expect(doc.rounds.map((r) => r.round)).toEqual([1, 2]);
    for (const r of doc.rounds) expect([...r.order].sort()).toEqual(TARGETS);
    // the trials ran in the order the rounds say
    expect(doc.trials.map((t) => t.target)).toEqual(doc.rounds.flatMap((r) => r.order));
    expect(doc.machine.cores).toBeGreaterThan(0);
  });

  it("lists each trial's own result document, tagged with the campaign, its trial and round, and the machine's noise", () => {
    expect(trials).toHaveLength(4);
    for (const [i, t] of outcome.doc.trials.entries()) {
      const d = trials[i]!;
      expect(d.runId).toBe(t.runId);
      expect(d.target.name).toBe(t.target);
      expect(d.status, d.error?.message).toBe("completed");
      expect(d.campaign).toEqual({ campaignId: outcome.doc.campaignId, trial: t.round, round: t.round, attempt: 1 });
      expect(d.noise!.loadAverage.start).toHaveLength(3);
      expect(d.noise!.runCores).toBeGreaterThan(0);
      expect(d.noise!.busy).toBe(d.noise!.busyBecause.length > 0);
      expect(t.noise).toEqual(d.noise);
      expect(t.counted).toBe(true);
    }
    // the documents stay small enough to keep in git
    for (const t of outcome.doc.trials) expect(readFileSync(join(outcome.dir, t.document)).length).toBeLessThan(512 * 1024);
  });

  it("builds each target's populated state once, and starts every trial on a copy of it, audited against the build's records", async () => {
    const states = outcome.doc.populatedStates!;
    expect(states.map((s) => s.target).sort()).toEqual(TARGETS);
    for (const { target, state, reason } of states) {
      expect(reason, `${target}: ${reason}`).toBeUndefined();
      expect(state).toMatchObject({ products: 200, populate: 300 });
      expect(state!.bytes).toBeGreaterThan(1 << 20);
      expect((await readAuditRecords(join(paths.home, "runs", state!.buildId, "populate.console.log"))).checkouts).toHaveLength(300);
      for (const [i, t] of outcome.doc.trials.entries()) {
        if (t.target !== target) continue;
        const d = trials[i]!;
        expect(d.populatedState).toEqual(state);
        // the trial seeded and populated nothing itself: it holds the build's records, the audit's input
        expect(d.rawData.files).toEqual(expect.arrayContaining(["seed.console.log", "populate.console.log"]));
        expect(d.rawData.files).not.toContain("seed.csv.gz");
        expect(d.rawData.files).not.toContain("populate.csv.gz");
        // the audit found every product and every co-purchase the build and the trial wrote (whether a loaded machine let the stable phase hold is another matter)
        for (const c of d.cells) expect(c.anomalies, `${target} ${c.workload}`).toMatchObject({ total: 0 });
      }
    }
    // the copies are scratch: gone with the campaign
    expect(existsSync(join(paths.home, "populated", outcome.doc.campaignId))).toBe(false);
  });

  it("computes each target's statistics from its trials' knees, and the ratio to the reference by round", () => {
    const byTarget = (name: string) => outcome.doc.statistics.find((s) => s.target === name)!;
    for (const name of TARGETS) {
      const knees = outcome.doc.trials
        .filter((t) => t.target === name)
        .sort((a, b) => a.round - b.round)
        .map((t) => {
          const c = trials.find((d) => d.runId === t.runId)!.cells[0]!;
          return c.valid ? c.maxThroughput!.sustainableRate : null;
        });
      const s = byTarget(name);
      expect(s.values).toEqual(knees);
      const numbers = knees.filter((k): k is number => k !== null);
      expect(s.n).toBe(numbers.length);
      expect(s.invalid).toBe(2 - numbers.length);
      if (numbers.length) expect(s.median).toBe(median(numbers));
      if (numbers.length === 2) expect(s.interval!.low).toBeLessThanOrEqual(s.median!);
    }
    expect(byTarget("campaign-a").ratioToReference).toBeUndefined();
    // the ratio pairs the rounds: it exists when some round measured both knees (a loaded machine can leave one knee unknown in each round)
    const b = byTarget("campaign-b");
    const a = byTarget("campaign-a");
    const paired = a.values.some((v, round) => v !== null && v > 0 && (b.values[round] ?? 0) > 0);
    if (paired) expect(b.ratioToReference!.ratio).toBeGreaterThan(0);
    else expect(b.ratioToReference).toBeUndefined();
    // the CPU at the knee: each valid trial's cores at its knee over the cores it was given, summarized like the knees
    for (const name of TARGETS) {
      const shares = outcome.doc.trials
        .filter((t) => t.target === name)
        .flatMap((t) => {
          const d = trials.find((x) => x.runId === t.runId)!;
          const c = d.cells[0]!;
          const given = d.environment.cpuSplit ? parseCpuList(d.environment.cpuSplit.target).length : 0;
          return c.valid && c.maxThroughput!.sustainableRate !== null && c.maxThroughput!.kneeCores !== undefined && given
            ? [c.maxThroughput!.kneeCores / given]
            : [];
        });
      const share = byTarget(name).kneeCoreShare;
      if (shares.length) expect(share).toMatchObject({ n: shares.length, median: expect.closeTo(median(shares), 2) });
      else expect(share).toBeUndefined();
    }
    const table = campaignTable(outcome.doc);
    expect(table).toMatch(/checkout\/uniform \(checkouts\/s\)\s+campaign-a/);
    expect(table).toMatch(/ratio to reference\s+CPU at knee\n/);
    expect(campaignMarkdown(outcome.doc)).toMatch(/^\| cell \| target \| median/m);
  });
});
