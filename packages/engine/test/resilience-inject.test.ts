/**
 * Planning and injecting the fault, and reading the failed requests back
 * from raw k6 output on the series' clock. The node operations are fakes
 * here (the real ones are tested in provider-local and in
 * resilience-recovery.test.ts).
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { FaultKill, parseManifest, type TargetManifest } from "@sfbench/core";
import { afterAll, describe, expect, it } from "vitest";
import { injectFault, planFault } from "../src/resilience/inject.ts";
import { failuresFromK6Csv, onSeriesClock, seriesOriginMs } from "../src/resilience/k6-failures.ts";

const manifest = (extra: object = {}): TargetManifest => {
  const r = parseManifest({
    name: "demo",
    system: "Demo",
    version: "1.0.0",
    language: "go",
    port: 8080,
    guarantees: { consistency: "serializable", messaging: "synchronous", durability: "durable" },
    local: { command: ["./demo"] },
    loc: { app: ["*.go"] },
    ...extra,
  });
  if (!r.ok) throw new Error(r.errors.join("; "));
  return r.manifest;
};

describe("planning the fault", () => {
  it("kills a single-process target whole and restarts it", () => {
    expect(planFault(manifest(), 1)).toEqual({ node: 0, nodes: 1, whole: true, restart: true });
  });

  it("kills the last node of several and leaves it down unless asked, so the failover is measured", () => {
    const m = manifest({ nodes: { max: 4, routing: "self" } });
    expect(planFault(m, 3)).toEqual({ node: 2, nodes: 3, whole: false, restart: false });
    expect(planFault(m, 3, { restartNode: true })).toEqual({ node: 2, nodes: 3, whole: false, restart: true });
  });

  it("refuses more nodes than the target supports, naming the field", () => {
    expect(() => planFault(manifest(), 2)).toThrow("nodes: 2 is not a node count demo supports (allowed: 1 to 1)");
  });
});

describe("injecting the fault", () => {
  it("kills at the planned instant, restarts, and reports on the series' clock", async () => {
    const calls: string[] = [];
    let restartFrom = 0;
    let healthyAt = 0;
    const origin = Date.now() - 30_000;
    const atMs = Date.now() + 150;
    const kill = await injectFault({
      plan: { node: 0, nodes: 1, whole: true, restart: true },
      atMs,
      originMs: origin,
      kill: async (i, s) => {
        calls.push(`kill ${i} ${s}`);
        return { at: Date.now() };
      },
      restart: async (i) => {
        calls.push(`restart ${i}`);
        restartFrom = Date.now();
        await new Promise((r) => setTimeout(r, 100));
        healthyAt = Date.now();
      },
    });
    expect(calls).toEqual(["kill 0 SIGKILL", "restart 0"]);
    expect(kill.atS).toBeGreaterThanOrEqual(30.15);
    // from the kill to the restart's return, on the same wall clock: at least the restart's own time (a timer's 100 ms may read as 99)
    expect(kill.restartHealthyAfterS).toBeGreaterThanOrEqual((healthyAt - restartFrom) / 1000);
    expect(kill.restartHealthyAfterS).toBeGreaterThan(0.05);
    expect(FaultKill.parse(kill)).toEqual(kill);
  });

  it("stops waiting when the phase ends before the planned instant, and kills nothing", async () => {
    const calls: string[] = [];
    const abort = new AbortController();
    const pending = injectFault({
      plan: { node: 0, nodes: 1, whole: true, restart: true },
      atMs: Date.now() + 60_000,
      originMs: Date.now(),
      signalAbort: abort.signal,
      kill: async (i) => {
        calls.push(`kill ${i}`);
        return { at: Date.now() };
      },
      restart: async (i) => {
        calls.push(`restart ${i}`);
      },
    });
    abort.abort();
    await expect(pending).rejects.toThrow("the phase ended before the planned fault");
    expect(calls).toEqual([]);
  });

  it("reports a failed restart instead of throwing, and does not restart a node the plan leaves down", async () => {
    const failed = await injectFault({
      plan: { node: 0, nodes: 1, whole: true, restart: true },
      atMs: 0,
      originMs: 0,
      kill: async () => ({ at: 5000 }),
      restart: async () => Promise.reject(new Error("target not healthy within 60 s")),
    });
    expect(failed).toMatchObject({ atS: 5, restarted: true, restartHealthyAfterS: null, restartError: "target not healthy within 60 s" });
    expect(FaultKill.parse(failed)).toEqual(failed);
    let restarted = false;
    const down = await injectFault({
      plan: { node: 1, nodes: 2, whole: false, restart: false },
      atMs: 0,
      originMs: 0,
      kill: async () => ({ at: 1000 }),
      restart: async () => (restarted = true),
    });
    expect(down).toEqual({ node: 1, nodes: 2, signal: "SIGKILL", atS: 1, restarted: false, restartHealthyAfterS: null });
    expect(restarted).toBe(false);
  });
});

describe("failed requests from raw k6 output", () => {
  const dir = mkdtempSync(join(tmpdir(), "sfbench-failures-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const HEADER = "metric_name,timestamp,metric_value,error_code,expected_response,method,scenario,status,extra_tags,metadata";
  const T0 = 1_800_000_000_000;
  const http = (end: number, status: number, tags: string) =>
    `http_req_duration,${end},5.000000,${status === 0 ? 1050 : ""},${status === 200 || status === 409},POST,stable,${status},${tags},`;

  it("takes the measured op's requests that were neither 200 nor 409, on the series' clock", async () => {
    const file = join(dir, "k6.csv.gz");
    writeFileSync(
      file,
      gzipSync(
        [
          HEADER,
          http(T0 + 400, 200, "op=checkout"),
          http(T0 + 1500, 409, "op=checkout"),
          http(T0 + 2250, 0, "op=checkout"),
          http(T0 + 2300, 502, "op=create-user"),
          http(T0 + 3100, 503, "cart_size=3&op=checkout"),
          "",
        ].join("\n"),
      ),
    );
    const origin = seriesOriginMs(T0 + 395);
    expect(origin).toBe(T0);
    expect(await failuresFromK6Csv(file, { op: "checkout", originMs: origin })).toEqual([
      { atS: 2.25, status: 0 },
      { atS: 3.1, status: 503 },
    ]);
    expect(onSeriesClock(T0 + 12_500, origin)).toBe(12.5);
  });
});
