/**
 * Runs real k6 against a local HTTP server with a known latency and checks
 * the aggregation against what the server itself counted.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { aggregateK6, type K6Aggregate } from "../src/analysis/aggregate.ts";
import { maxMovingAverage, sustainableRate } from "../src/analysis/metrics.ts";
import { k6Binary } from "../../workloads/test/k6-binary.ts";

const LATENCY_MS = 25;

/** Two steps (20/s, then 40/s, 3 s each); every 10th checkout answers 409 and every 10th (offset 5) 500. */
const SCRIPT = `
import http from "k6/http";
import exec from "k6/execution";
import { check } from "k6";

export const options = {
  systemTags: ["status", "method", "scenario", "expected_response", "error_code"],
  scenarios: {
    step_0: { executor: "constant-arrival-rate", rate: 20, timeUnit: "1s", duration: "3s", preAllocatedVUs: 10, maxVUs: 50 },
    step_1: { executor: "constant-arrival-rate", rate: 40, timeUnit: "1s", duration: "3s", preAllocatedVUs: 10, maxVUs: 50, startTime: "3s" },
  },
};

export default function () {
  const step = exec.scenario.name;
  const i = exec.scenario.iterationInTest;
  const want = i % 10 === 3 ? 409 : i % 10 === 8 ? 500 : 200;
  const headers = { "x-step": step, "x-want": String(want) };
  http.post(__ENV.BASE + "/users", "{}", { headers, tags: { op: "create-user" } });
  const r = http.post(__ENV.BASE + "/orders/checkout", "{}", {
    headers,
    tags: { op: "checkout", cart_size: String(2 + (i % 7)) },
    responseCallback: http.expectedStatuses(200, 409),
  });
  check(r, { "checkout answers 200 or 409": (x) => x.status === 200 || x.status === 409 });
}
`;

type Counts = Record<string, { successful: number; rejected: number; errors: number; users: number }>;

async function runK6(script: string, csv: string, base: string): Promise<void> {
  const k6 = await k6Binary();
  return new Promise((resolve, reject) => {
    const p = spawn(k6, ["run", "--quiet", "--no-summary", "--out", `csv=${csv}`, "-e", `BASE=${base}`, script], {
      env: { ...process.env, K6_CSV_TIME_FORMAT: "unix_milli", K6_NO_USAGE_REPORT: "true" },
      stdio: ["ignore", "ignore", "pipe"],
    });
    let stderr = "";
    p.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    p.on("error", reject);
    p.on("exit", (code) => (code === 0 ? resolve() : reject(new Error(`k6 exited with ${code}: ${stderr.slice(-2000)}`))));
  });
}

describe("aggregating the output of a real k6 run", () => {
  const dir = mkdtempSync(join(tmpdir(), "sfbench-k6run-"));
  const counts: Counts = {};
  let server: Server;
  let a: K6Aggregate;

  beforeAll(async () => {
    server = createServer((req, res) => {
      const step = String(req.headers["x-step"]);
      const c = (counts[step] ??= { successful: 0, rejected: 0, errors: 0, users: 0 });
      const status = req.url === "/users" ? 200 : Number(req.headers["x-want"]);
      req.resume();
      req.on("end", () =>
        setTimeout(
          () => {
            if (req.url === "/users") c.users++;
            else if (status === 200) c.successful++;
            else if (status === 409) c.rejected++;
            else c.errors++;
            res.writeHead(status, { "content-type": "application/json" });
            res.end(status === 200 ? '"ok"' : JSON.stringify({ error: status === 409 ? "insufficient-stock" : "internal", message: "injected" }));
          },
          req.url === "/users" ? 1 : LATENCY_MS,
        ),
      );
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const script = join(dir, "two-steps.js");
    writeFileSync(script, SCRIPT);
    const csv = join(dir, "out.csv.gz");
    await runK6(script, csv, base);
    a = await aggregateK6(csv, { op: "checkout", stepRates: [20, 40], rejections: "audited" });
  }, 60_000);

  afterAll(async () => {
    await new Promise((r) => server.close(r));
    rmSync(dir, { recursive: true, force: true });
  });

  it("counts per step exactly what the server answered, 409 as rejected and 500 as errors", () => {
    expect(a.steps.map((s) => s.scenario)).toEqual(["step_0", "step_1"]);
    for (const s of a.steps) {
      const c = counts[s.scenario]!;
      expect({ successful: s.successful, rejected: s.rejected, errors: s.errors }).toEqual({
        successful: c.successful,
        rejected: c.rejected,
        errors: c.errors,
      });
      expect(s.rejected).toBeGreaterThan(0);
      expect(s.errors).toBeGreaterThan(0);
      // the step's iterations are what it offered, up to two at its end: k6 v1.8.1 sometimes starts one extra iteration exactly
      // as a constant-arrival-rate step ends, and on a loaded machine the one due at that instant may find the step over and
      // be neither started nor counted as dropped; with one core kept busy a step once had two more than it offered
      expect(Math.abs(s.requests + s.droppedIterations - s.offeredRate! * 3)).toBeLessThanOrEqual(2);
    }
    expect(a.setupOps["create-user"]!.successful).toBe(counts.step_0!.users + counts.step_1!.users);
    expect(a.checks).toEqual({ passes: a.overall.successful + a.overall.rejected, fails: a.overall.errors });
  });

  it("measures the injected latency", () => {
    expect(a.overall.latency.p50).toBeGreaterThanOrEqual(LATENCY_MS);
    expect(a.overall.latency.p50).toBeLessThan(LATENCY_MS + 10);
    expect(a.setupOps["create-user"]!.latency.p50).toBeLessThan(LATENCY_MS);
  });

  it("estimates the step durations and rates from the iteration start times", () => {
    for (const s of a.steps) {
      expect(s.durationEstimated).toBe(true);
      expect(s.durationS).toBe(3);
      // completed = successful + rejected: the 10% errors are missing
      expect(s.completedShare).toBeCloseTo(0.9, 1);
      expect(s.errorRate).toBeCloseTo(0.1, 1);
    }
    expect(a.steps[1]!.startS).toBeCloseTo(3, 0);
    // 10% errors: no step is sustainable, and the verdict says why
    const sr = sustainableRate(a.steps);
    expect(sr.rate).toBeNull();
    expect(sr.verdicts[0]!.reasons).toEqual([
      // judged inside the step's measured window (aggregate.ts), where the 10% errors are missing too
      expect.stringMatching(/^completed (8|9)\d(\.\d+)?% of the offered rate within the step \(needs >= 95%\)$/),
      expect.stringMatching(/^error rate \d+(\.\d+)?% \(needs < 1%\)$/),
    ]);
    expect(sustainableRate(a.steps, { maxErrorRate: 0.2, minCompletedShare: 0.8 }).rate).toBe(40);
  });

  it("builds a per-second series that adds up to the totals", () => {
    const sum = (k: "successful" | "rejected" | "errors") => a.perSecond.reduce((n, p) => n + p[k], 0);
    expect([sum("successful"), sum("rejected"), sum("errors")]).toEqual([a.overall.successful, a.overall.rejected, a.overall.errors]);
    expect(a.perSecond.length).toBeGreaterThanOrEqual(6);
    expect(a.perSecond.length).toBeLessThanOrEqual(8);
    expect(a.perSecond[1]!.offered).toBe(20);
    expect(a.perSecond[4]!.offered).toBe(40);
    const m = maxMovingAverage(a.perSecond);
    expect(m.partial).toBe(true);
    expect(m.value).toBeGreaterThan(15);
  });

  it("keeps a histogram per cart size", () => {
    expect(Object.keys(a.byTag.cart_size!)).toEqual(["2", "3", "4", "5", "6", "7", "8"]);
    const total = Object.values(a.byTag.cart_size!).reduce((n, x) => n + x.requests, 0);
    expect(total).toBe(a.overall.requests);
  });
});
