/**
 * sfbench run end to end: real node-postgres on real PostgreSQL, real k6.
 * The result document must validate and agree with the raw k6 output.
 */
import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { parseCampaign, parseResult, parseSpanLine, type ResultDocument } from "@sfbench/core";
import { startMemoryTarget, type MemoryTarget } from "@sfbench/conformance/testing";
import { kafkaBrokers, paths, status, up } from "@sfbench/services";
import { readAuditRecords, roundRate, spanTopic, streamK6Csv, withAdmin } from "@sfbench/engine";
import { isAlive, runningTarget, targetPids } from "@sfbench/provider-local";
import { sfbench, sfbenchInProcess, spawnSfbench } from "./helpers.ts";

/** The shape the web charts read (a copy of apps/web/src/charts/data/breakdown.ts, strict here). */
const ms = z.number().nonnegative();
const BreakdownPart = z.strictObject({ gatewayMs: ms, functionMs: z.record(z.string(), ms), networkMs: ms, count: z.number().int().nonnegative() });
const Breakdown = z.strictObject({
  overall: BreakdownPart,
  byCartSize: z.record(z.string(), BreakdownPart).optional(),
  byShape: z.record(z.string(), BreakdownPart).optional(),
  notes: z.array(z.string()).optional(),
  coverage: z
    .strictObject({
      requests: z.number().int().nonnegative(),
      traced: z.number().int().nonnegative(),
      complete: z.number().int().nonnegative(),
      share: z.number().min(0).max(1),
      clientMs: ms,
      sumMs: ms,
      spansMs: ms,
      deviation: z.number().nonnegative(),
      flagged: z.boolean(),
      flags: z.array(z.string()),
    })
    .optional(),
});

function onlyResult(dir: string, target: string): ResultDocument {
  const files = readdirSync(join(dir, target));
  expect(files).toHaveLength(1);
  const parsed = parseResult(readFileSync(join(dir, target, files[0]!), "utf8"));
  if (!parsed.ok) throw new Error(parsed.errors.join("\n"));
  return parsed.result;
}

/** Counts checkout requests in a raw k6 CSV by status. */
async function checkoutStatuses(csv: string): Promise<Map<number, number>> {
  const counts = new Map<number, number>();
  await streamK6Csv(csv, (s) => {
    if (s.metric === "http_req_duration" && s.tags.op === "checkout") counts.set(s.status ?? 0, (counts.get(s.status ?? 0) ?? 0) + 1);
  });
  return counts;
}

describe("sfbench run --profile quick against node-postgres", () => {
  const results = mkdtempSync(join(tmpdir(), "sfbench-results-"));
  let doc: ResultDocument;
  let stdout = "";
  /** the target's log as the run left it (the next start of node-postgres rewrites it) */
  let targetLog = "";

  beforeAll(async () => {
    // up before the run, as the tests want it after: a run stops only the Kafka it started
    await up(["kafka"]);
    const r = await sfbench([
      "run",
      "--target",
      "node-postgres",
      "--workload",
      "checkout",
      "--distribution",
      "uniform",
      "--profile",
      "quick",
      "--results",
      results,
    ]);
    stdout = r.stdout;
    targetLog = readFileSync(join(paths.home, "targets", "node-postgres.log"), "utf8");
    expect(r.code, r.stderr).toBe(0);
    doc = onlyResult(results, "node-postgres");
  });

  it("prints a summary table and where the result is", () => {
    expect(stdout).toMatch(/^node-postgres 0\.2\.0, profile quick, completed\n/);
    expect(stdout).toMatch(/\ncheckout\/uniform\s+checkouts\s+\d+/);
    expect(stdout).toMatch(/\nresult: .*\/node-postgres\/\d{8}-\d{6}-[0-9a-f]{8}\.json\n/);
  });

  it("writes a valid, completed document with the environment and one measured cell", () => {
    expect(doc.status).toBe("completed");
    expect(doc.target).toMatchObject({ name: "node-postgres", version: "0.2.0", system: "Node.js + PostgreSQL" });
    expect(doc.environment).toMatchObject({ kind: "local", nodes: 1, k6Version: "v1.8.1" });
    expect(doc.environment.systemVersion).toMatch(/PostgreSQL \d+/);
    expect(doc.cells).toHaveLength(1);
    const cell = doc.cells[0]!;
    expect(cell.maxThroughput!.steps.length).toBeGreaterThanOrEqual(1);
    // 80% of the knee, rounded as every offered rate is (a tenth below 100/s: a loaded machine's quick knee of 13/s gives 10.4/s)
    expect(cell.stable!.offeredRate).toBe(Math.max(0.1, roundRate((cell.maxThroughput!.sustainableRate ?? cell.maxThroughput!.maxMovingAvg10s) * 0.8)));
    expect(cell.cost!.targetCpuSeconds).toBeGreaterThan(0);
    expect(cell.cost!.peakRssBytes).toBeGreaterThan(10 << 20);
    expect(cell.anomalies!.total).toBe(0);
    // every ramp step says the cores the target used, and the knee the mean of those at its rate
    const mt = cell.maxThroughput!;
    for (const step of mt.steps) expect(step.targetCores, step.scenario).toBeGreaterThan(0);
    if (mt.sustainableRate !== null) {
      const at = mt.steps.filter((s) => s.phase !== "warmup" && s.offeredRate === mt.sustainableRate && !s.failedBecause?.length).map((s) => s.targetCores!);
      expect(mt.kneeCores).toBeCloseTo(at.reduce((a, b) => a + b, 0) / at.length, 2);
    }
  });

  it("agrees with the raw k6 output: stable counts, per-second series and audit records", async () => {
    const cell = doc.cells[0]!;
    const raw = (name: string) => join(doc.rawData.dir, name);
    expect(doc.rawData.files).toContain("checkout-uniform-stable.csv.gz");
    const stable = await checkoutStatuses(raw("checkout-uniform-stable.csv.gz"));
    const ok = stable.get(200) ?? 0;
    expect(cell.stable!.latency.count).toBe(ok + (stable.get(409) ?? 0));
    expect(cell.stable!.achievedRate).toBeCloseTo(ok / cell.stable!.durationS, 6);

    let allOk = 0;
    let records = 0;
    for (const f of doc.rawData.files.filter((f) => f.startsWith("checkout-uniform-") && f.endsWith(".csv.gz"))) {
      allOk += (await checkoutStatuses(raw(f))).get(200) ?? 0;
      records += (await readAuditRecords(raw(f.replace(".csv.gz", ".console.log")))).checkouts.length;
    }
    expect(cell.series.reduce((n, p) => n + p.successful, 0)).toBe(allOk);
    expect(records).toBeGreaterThanOrEqual(allOk);
  });

  it("runs the knee search and the stable phase untraced, then breaks the traced phase's checkouts down from node-postgres's spans (through Kafka), per cart size", async () => {
    expect(stdout).toMatch(
      /\nbreakdown checkout\/uniform \(mean ms of \d+ traced requests\): gateway [\d.]+, product [\d.]+, user [\d.]+, cart [\d.]+, order [\d.]+, network \+ queueing [\d.]+\n/,
    );
    expect(stdout).toMatch(
      /\ntraced checkout\/uniform: [\d.]+\/s for 3 s, p50 [\d.]+ ms, p99 [\d.]+ ms \([\d.]+x and [\d.]+x the untraced stable phase's\); target CPU [\d.]+ cores, [\d.]+ core-s per 1000 \([\d.]+x the stable phase's\)\n/,
    );
    const cell = doc.cells[0]!;
    const traced = cell.traced!;
    // the stable phase's rate again, for the profile's traced seconds, and what it cost against the stable phase
    expect(traced).toMatchObject({ offeredRate: cell.stable!.offeredRate, durationS: 3 });
    expect(cell.parameters.tracedS).toBe(3);
    expect(traced.overhead.p50).toBeCloseTo(traced.latency.p50 / cell.stable!.latency.p50, 2);
    // and in CPU: the target sampled as in the stable phase, its cost per request over the stable phase's
    expect(traced.cost!.targetCores).toBeGreaterThan(0);
    expect(traced.cost!.vsStable).toBeCloseTo(traced.cost!.coreSecondsPer1000! / cell.cost!.coreSecondsPer1000!, 2);
    expect(doc.rawData.files).toContain("checkout-uniform-traced.csv.gz");

    // the spans in the target's log are the traced phase's: no request of the ramp or the stable phase wrote one
    const spanTraces = new Set(targetLog.split("\n").flatMap((line) => parseSpanLine(line)?.traceId ?? []));
    expect(spanTraces.size).toBeGreaterThan(0);
    const recordsOf = async (part: string) => (await readAuditRecords(join(doc.rawData.dir, `checkout-uniform-${part}.console.log`))).checkouts;
    const untraced = (await recordsOf("stable")).flatMap((c) => c.traceId ?? []);
    expect(untraced.length).toBeGreaterThan(0);
    expect(untraced.filter((id) => spanTraces.has(id))).toEqual([]);
    const tracedIds = (await recordsOf("traced")).flatMap((c) => c.traceId ?? []);
    expect(tracedIds.filter((id) => !spanTraces.has(id))).toEqual([]);

    const b = Breakdown.parse(cell.breakdown);
    expect(b.overall.gatewayMs).toBeGreaterThan(0);
    for (const entity of ["product", "user", "cart", "order"]) expect(b.overall.functionMs[entity], entity).toBeGreaterThan(0);
    // every answered checkout of the traced phase was traced, and the breakdown says so
    expect(b.overall.count).toBe(traced.latency.count);
    expect(b.coverage).toMatchObject({ requests: traced.latency.count, complete: traced.latency.count, share: 1 });
    expect(Object.keys(b.byCartSize!).length).toBeGreaterThan(1);
    for (const [size, part] of Object.entries(b.byCartSize!)) expect(part.functionMs.product, size).toBeGreaterThan(0);
    expect(Object.values(b.byCartSize!).reduce((n, p) => n + p.count, 0)).toBe(b.overall.count);
    // gateway + functions + network = the traced phase's mean client latency, unless network + queueing was clamped
    if (b.overall.networkMs > 0) {
      const sum = b.overall.gatewayMs + Object.values(b.overall.functionMs).reduce((x, y) => x + y, 0) + b.overall.networkMs;
      expect(sum).toBeCloseTo(traced.latency.mean, 1);
    }
    // the run's span topic is gone, and Kafka, up before the run, is still up
    expect((await status(["kafka"]))[0]?.running).toBe(true);
    await expect.poll(() => withAdmin(kafkaBrokers(), (admin) => admin.listTopics()), { timeout: 10_000, interval: 200 }).not.toContain(spanTopic(doc.runId));
  });
});

describe("sfbench run refusals", () => {
  let broken: MemoryTarget;
  beforeAll(async () => {
    broken = await startMemoryTarget({ fault: "no-rollback" });
  });
  afterAll(() => broken.close());

  // each row only reads its flags: the CLI's main in this process, as the shell would see it (help.test.ts starts the entry point)
  it.each([
    [["run", "--target", "node-postgres", "--profile", "fast"], /--profile must be one of quick, standard, thesis, got "fast"/],
    [["run", "--target", "node-postgres", "--workload", "browse"], /--workload must be one of checkout, analytics, contention, micro, all, got "browse"/],
    [["run", "--target", "node-postgres", "--distribution", "pareto"], /--distribution must be one of uniform, zipf, both, got "pareto"/],
    [["run", "--target", "node-postgres", "--seed", "1.5"], /--seed must be an integer from 0 to 2147483647, got "1.5"/],
    [["run"], /give exactly one of --url URL, --target NAME or --image REF/],
    [["run", "--url", "http://127.0.0.1:19499", "--trials", "2"], /--trials N \(more than 1\) needs --target NAME/],
    [["run", "--target", "node-postgres", "--trials", "0"], /--trials must be an integer from 1 to 100, got "0"/],
    [["run", "--kube-play", "--url", "http://127.0.0.1:19499"], /--kube-play needs --target NAME, without --image, --nodes or --trials/],
    [["campaign", "--targets", "node-postgres", "--reference", "restate"], /--reference must be one of --targets \(node-postgres\), got "restate"/],
    [["campaign", "--targets", "node-postgres,node-postgres"], /--targets: each target once/],
    [["campaign"], /--targets needs one or more bundled targets/],
    [["campaign", "--all", "--targets", "node-postgres"], /--all goes with --server/],
    [
      ["campaign", "--server", "http://127.0.0.1:19499", "--all", "--targets", "node-postgres"],
      /--all runs every registered system: give it without --targets/,
    ],
  ])("sfbench %j exits 2 naming the flag", async (args, message) => {
    const r = await sfbenchInProcess(args);
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toMatch(message);
  });

  // a campaign entry NAME@image is a bundled target from its own image: refused before anything is built when the name does not fit
  it.each([
    [["campaign", "--targets", "node-postgres,nope@image"], /unknown target "nope"; bundled targets: .*node-postgres/],
    [["campaign", "--targets", "node-postgres@image,nope@image"], /unknown target "nope"; bundled targets: .*node-postgres/],
  ])("sfbench %j exits 3 naming what does not fit", async (args, message) => {
    const r = await sfbenchInProcess(args);
    expect(r.code).toBe(3);
    expect(r.stderr.trim()).toMatch(message);
  });

  it("gives a non-conformant target no numbers, and keeps a failed run with the reason", async () => {
    const results = mkdtempSync(join(tmpdir(), "sfbench-results-"));
    const r = await sfbench(["run", "--url", broken.url, "--results", results]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/FAIL checkout\.insufficient-stock-changes-nothing/);
    const dirs = readdirSync(results);
    expect(dirs).toHaveLength(1);
    const doc = onlyResult(results, dirs[0]!);
    expect(doc.status).toBe("failed");
    expect(doc.error!.stage).toBe("verify");
    expect(doc.error!.message).toMatch(/conformance checks failed: .*checkout\.insufficient-stock-changes-nothing/);
    expect(doc.cells).toEqual([]);
  });
});

describe("Ctrl-C during sfbench campaign", () => {
  it("stops the target it started and the target's PostgreSQL, keeps the campaign document with the reason, and exits 130", { timeout: 180_000 }, async () => {
    const results = mkdtempSync(join(tmpdir(), "sfbench-results-"));
    const child = spawnSfbench(["campaign", "--targets", "node-postgres", "--trials", "1", "--profile", "quick", "--no-trace", "--results", results]);
    let output = "";
    const exited = new Promise<number | null>((resolve) => child.on("close", resolve));
    const started = new Promise<void>((resolve) => {
      const read = (d: Buffer) => {
        output += d;
        if (/node-postgres is up at /.test(output)) resolve();
      };
      child.stdout.on("data", read);
      child.stderr.on("data", read);
    });
    await Promise.race([started, exited]);
    const pids = targetPids("node-postgres");
    const all = [...pids.nodes.map((n) => n.pid), ...(pids.postgres ? [pids.postgres] : [])];
    expect(all, output).toHaveLength(2);

    child.kill("SIGINT");
    expect(await exited, output).toBe(130);
    expect(output).toMatch(/SIGINT: stopping the target and ending the run/);
    // node's default would have left both running in the target's own process group
    expect(all.filter((pid) => isAlive(pid))).toEqual([]);
    expect(runningTarget("node-postgres")).toBeUndefined();
    const [dir] = readdirSync(join(results, "campaigns"));
    const parsed = parseCampaign(JSON.parse(readFileSync(join(results, "campaigns", dir!, "campaign.json"), "utf8")));
    if (!parsed.ok) throw new Error(parsed.errors.join("\n"));
    expect(parsed.campaign.error).toBe("interrupted: SIGINT from the command line");
    expect(parsed.campaign.trials).toEqual([]);
  });
});
