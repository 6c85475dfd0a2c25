/**
 * sfbench run --workload micro (docs/spec.md 8): the microbenchmarks of
 * node-postgres through the real pipeline (k6, the target's own PostgreSQL),
 * and a target that does not implement them, which is told so instead of
 * being skipped silently.
 */
import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseResult, type ResultDocument } from "@sfbench/core";
import { startMemoryTarget, type MemoryTarget } from "@sfbench/conformance/testing";
import { sfbench } from "./helpers.ts";

function onlyResult(dir: string, target: string): ResultDocument {
  const files = readdirSync(join(dir, target));
  expect(files).toHaveLength(1);
  const parsed = parseResult(readFileSync(join(dir, target, files[0]!), "utf8"));
  if (!parsed.ok) throw new Error(parsed.errors.join("\n"));
  return parsed.result;
}

describe("sfbench run --workload micro", () => {
  it("measures node-postgres's overhead per route and rate, its empty max rate and its messaging, and checks every answer", async () => {
    const results = mkdtempSync(join(tmpdir(), "sfbench-micro-"));
    const r = await sfbench(["run", "--target", "node-postgres", "--workload", "micro", "--profile", "quick", "--results", results]);
    expect(r.code, r.stderr).toBe(0);
    const doc = onlyResult(results, "node-postgres");
    expect(doc.schemaVersion).toBe(2);
    expect(doc.cells).toEqual([]);
    const m = doc.micro!;
    if (!m.supported) throw new Error(m.reason);
    // every route at every rate of the quick profile, with the handler's own time below the end-to-end time
    expect(m.overhead.map((o) => `${o.route}@${o.offeredRate}`)).toEqual(["empty@5", "empty@20", "math@5", "math@20", "sleep@5", "sleep@20", "io@5", "io@20"]);
    for (const o of m.overhead) {
      expect(o.requests, o.route).toBeGreaterThan(0);
      expect(o.handlerMs.p50, o.route).toBeLessThan(o.latencyMs.p50);
      expect(o.overheadMs.p50, o.route).toBeGreaterThan(0);
    }
    const sleep = m.overhead.find((o) => o.route === "sleep")!;
    expect(sleep.handlerMs.p50).toBeGreaterThanOrEqual(100);
    expect(m.emptyMaxRate.sustainableRate).toBeGreaterThan(0);
    expect(m.pingpong.map((p) => p.messages)).toEqual([20, 160]);
    expect(m.pingpong.every((p) => p.messagesPerS > 0 && p.rttNs.p50 !== null)).toBe(true);
    expect(m.divide[0]).toMatchObject({ items: 10_000, fanout: 4, leaf: 1000 });
    expect(m.big[0]).toMatchObject({ entities: 10, messages: 500 });
    // the summary says it in words
    expect(r.stdout).toMatch(/micro: invocation overhead/);
    expect(r.stdout).toMatch(/empty: highest sustainable rate \d+\/s/);
    expect(r.stdout).toMatch(/ping-pong 16 pairs, 4096 B: \d+ round trips\/s/);
  }, 300_000);

  describe("against a target without the micro routes", () => {
    let target: MemoryTarget;
    beforeAll(async () => {
      target = await startMemoryTarget();
    });
    afterAll(async () => {
      await target.close();
    });

    it("stores that the microbenchmarks are not supported, with the reason, instead of numbers", async () => {
      const results = mkdtempSync(join(tmpdir(), "sfbench-micro-"));
      const r = await sfbench(["run", "--url", target.url, "--workload", "micro", "--profile", "quick", "--results", results, "--no-trace"]);
      expect(r.code, r.stderr).toBe(0);
      const dir = readdirSync(results)[0]!;
      const doc = onlyResult(results, dir);
      expect(doc.micro).toEqual({ supported: false, reason: expect.stringContaining('does not declare "micro": true') });
      expect(r.stdout).toMatch(/micro: not supported/);
    }, 120_000);
  });
});
