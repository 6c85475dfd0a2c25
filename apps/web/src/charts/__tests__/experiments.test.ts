/**
 * Data shaping of the microbenchmark and resilience charts, on documents that
 * pass parseResult (the fixture builders of apps/web/fixtures, schema 2) and on
 * a version-1 document, which has neither.
 */
import { parseResult, type MicroResult, type ResultDocument } from "@sfbench/core";
import { describe, expect, it } from "vitest";
import { fixtureManifest } from "../../../fixtures/manifest.ts";
import { fixtureResult, type FixtureOptions } from "../../../fixtures/result-doc.ts";
import { microFigures } from "../../shared/micro-figures.ts";
import { buildMicroCompareData, histogramEcdf, microRunData } from "../data/micro.ts";
import { resilienceRunData } from "../data/resilience.ts";
import { doc as v1doc } from "./fixtures.ts";

function schema2(name: string, opts: Omit<FixtureOptions, "target"> = {}): ResultDocument {
  const { manifest, digest } = fixtureManifest(name);
  const built = fixtureResult({
    size: "small",
    seed: 3,
    ...opts,
    target: { name, system: manifest.system, version: manifest.version, manifestDigest: digest },
  });
  const r = parseResult(JSON.parse(JSON.stringify(built)));
  if (!r.ok) throw new Error(r.errors.join("\n"));
  return r.result;
}

type Supported = Extract<MicroResult, { supported: true }>;

describe("histogramEcdf", () => {
  it("turns bucket counts into cumulative shares at the upper bounds, starting at 0 one bound below the first non-empty bucket", () => {
    const e = histogramEcdf([
      [1000, 0],
      [2000, 0],
      [5000, 2],
      [10000, 6],
      [20000, 2],
      [50000, 0],
      [null, 0],
    ]);
    expect(e.total).toBe(10);
    expect(e.beyond).toBe(0);
    expect(e.points).toEqual([
      { ms: 0.002, p: 0 },
      { ms: 0.005, p: 0.2 },
      { ms: 0.01, p: 0.8 },
      { ms: 0.02, p: 1 },
    ]);
  });

  it("counts round trips beyond the last bound, so the line ends below 1", () => {
    const e = histogramEcdf([
      [1e9, 3],
      [5e9, 0],
      [null, 1],
    ]);
    expect(e.beyond).toBe(1);
    expect(e.points.at(-1)).toEqual({ ms: 1000, p: 0.75 });
    expect(e.points[0]).toEqual({ ms: 500, p: 0 });
  });

  it("is empty for an empty histogram", () => {
    expect(
      histogramEcdf([
        [1000, 0],
        [null, 0],
      ]),
    ).toEqual({ points: [], beyond: 0, total: 0 });
  });
});

describe("microRunData", () => {
  it("gives overhead bars (p50 in handler and overhead) per route and rate, the empty max rate, ping-pong lines and the divide and Big figures", () => {
    const doc = schema2("a", { micro: "supported" });
    const micro = doc.micro as Supported;
    const d = microRunData(doc)!;
    if (!d.supported) throw new Error("expected supported");
    expect(d.overhead).toHaveLength(micro.overhead.length);
    const first = micro.overhead[0]!;
    expect(d.overhead[0]).toMatchObject({
      route: first.route,
      offeredRate: first.offeredRate,
      handlerMs: first.handlerMs.p50,
      overheadMs: first.overheadMs.p50,
      requests: first.requests,
    });
    expect(d.overhead.find((o) => o.route === "math")!.label).toBe("math (n=1000) @ 10/s");
    expect(d.emptyMaxRate).toEqual(micro.emptyMaxRate);
    expect(d.ecdf.map((l) => l.name)).toEqual(["1 pair, 64 B", "1 pair, 4 KiB", "16 pairs, 64 B", "16 pairs, 4 KiB"]);
    for (const [i, line] of d.ecdf.entries()) {
      expect(line.total).toBe(micro.pingpong[i]!.messages);
      const ps = line.points.map((p) => p.p);
      expect(ps).toEqual([...ps].sort((x, y) => x - y));
    }
    expect(d.pingpong[0]!.p99Ms).toBe(micro.pingpong[0]!.rttNs.p99! / 1e6);
    expect(d.divide.map((x) => [x.items, x.totalMs])).toEqual(micro.divide.map((x) => [x.items, Math.round(x.totalNs / 1e3) / 1e3]));
    expect(d.big.map((x) => [x.entities, x.messagesPerS])).toEqual(micro.big.map((x) => [x.entities, x.messagesPerS]));
  });

  it("says not supported with the reason, and gives nothing for a version-1 document", () => {
    expect(microRunData(schema2("b", { micro: "unsupported" }))).toEqual({ supported: false, reason: 'target.json does not declare "micro": true' });
    expect(microRunData(v1doc())).toBeNull();
  });
});

describe("buildMicroCompareData", () => {
  it("puts empty's overhead per system at each rate, one eCDF per ping-pong configuration with a line per system, and Big per entity count; systems without micro get a note", () => {
    const a = schema2("a", { micro: "supported", capacity: 1000 });
    const b = schema2("b", { micro: "supported", capacity: 2000 });
    const c = schema2("c", { micro: "unsupported" });
    const old = v1doc({ name: "old" });
    const d = buildMicroCompareData([
      { slug: "a", name: "A", doc: a },
      { slug: "b", name: "B", doc: b },
      { slug: "c", name: "C", doc: c },
      { slug: "old", name: "Old", doc: old },
    ]);
    expect(d.systems.map((s) => s.key)).toEqual(["s0", "s1"]);
    expect(d.notes).toEqual([
      { key: "s2", name: "C", reason: 'micro: not supported (target.json does not declare "micro": true)' },
      { key: "s3", name: "Old", reason: "no microbenchmarks in this run" },
    ]);
    const emptyA = (a.micro as Supported).overhead.filter((o) => o.route === "empty");
    expect(d.overhead.rows.map((r) => r.rate)).toEqual(emptyA.map((o) => o.offeredRate));
    expect(d.overhead.rows[0]).toMatchObject({ s0_handler: emptyA[0]!.handlerMs.p50, s0_overhead: emptyA[0]!.overheadMs.p50 });
    expect(d.pingpong.map((p) => p.key)).toEqual(["1x64", "1x4096", "16x64", "16x4096"]);
    expect(d.pingpong[0]!.lines.map((l) => l.name)).toEqual(["A", "B"]);
    expect(d.big.rows.map((r) => r.entities)).toEqual([10, 100, 1000]);
    expect(d.big.rows[2]).toEqual({ entities: 1000, s0: (a.micro as Supported).big[2]!.messagesPerS, s1: (b.micro as Supported).big[2]!.messagesPerS });
  });

  it("never plots a failed run", () => {
    const failed = { ...schema2("f", { micro: "supported" }), status: "failed" as const, error: { stage: "load", message: "boom" } };
    const d = buildMicroCompareData([{ slug: "f", name: "F", doc: failed }]);
    expect(d.systems).toEqual([]);
    expect(d.notes[0]!.reason).toMatch(/did not complete/);
    expect(d.big.rows).toEqual([]);
  });
});

describe("resilienceRunData", () => {
  it("marks the kill in the fault cell's series and lists the fault's figures", () => {
    const doc = schema2("a", { faultCell: "checkout/uniform" });
    const cell = doc.cells.find((c) => c.fault)!;
    const d = resilienceRunData(doc)!;
    expect(d.faults).toHaveLength(1);
    const f = d.faults[0]!;
    expect(f.cell).toBe("checkout · uniform");
    expect(f.marker.atS).toBe(cell.fault!.kill.atS);
    expect(f.series!.rows.some((r) => r.t === cell.fault!.kill.atS && r.successful === 0 && Number(r.errors) > 0)).toBe(true);
    const figures = Object.fromEntries(f.figures.map((x) => [x.label, x.value]));
    expect(figures["error window"]).toBe("0.05 s to 2.4 s after the kill (2.35 s)");
    expect(figures["recovered after"]).toBe("3 s (within 10% for 5 s)");
    expect(figures["lost (no answer)"]).toBe(String(cell.fault!.lost));
    expect(figures["audit anomalies"]).toBe("0 (lost-update: 0, double-charge: 0, stock-drift: 0)");
    expect(d.scaleUps).toEqual([]);
  });

  it("marks the added node, draws recovery vs entities and scalability per node count, and lists what is not supported", () => {
    const doc = schema2("a", { scaleUpCell: "checkout/zipf", resilience: true });
    const d = resilienceRunData(doc)!;
    expect(d.scaleUps[0]!.marker).toEqual({ atS: doc.cells.find((c) => c.scaleUp)!.scaleUp!.addedAtS, label: "node 2 added" });
    const points = doc.resilience!.recovery!.points;
    expect(d.recovery!.rows).toEqual(points.map((p) => ({ entities: p.products + p.users, health: p.healthAfterS, checkout: p.firstCheckoutAfterS })));
    expect(d.scalability!.chart.available).toBe(true);
    expect(d.scalability!.chart.rows).toEqual(doc.resilience!.scalability!.points.map((p) => ({ nodes: p.nodes, s0: p.sustainableRate })));
    expect(d.unsupported).toEqual([{ experiment: "scale-up", reason: "nodes cannot join a running target (target.json nodes.elastic is not true)" }]);
  });

  it("gives nothing for a document without resilience results (version 1) and for a failed run", () => {
    expect(resilienceRunData(v1doc())).toBeNull();
    const failed = { ...schema2("a", { resilience: true }), status: "failed" as const, error: { stage: "load", message: "x" } };
    expect(resilienceRunData(failed)).toBeNull();
  });
});

describe("microFigures", () => {
  it("takes empty's overhead at the lowest rate, the 1 pair 64 B ping-pong, divide at 10k items and Big at the most entities", () => {
    const doc = schema2("a", { micro: "supported" });
    const micro = doc.micro as Supported;
    const f = microFigures(micro);
    if (!f.supported) throw new Error("expected supported");
    const empty10 = micro.overhead.find((o) => o.route === "empty" && o.offeredRate === 10)!;
    const pp = micro.pingpong.find((p) => p.pairs === 1 && p.bytes === 64)!;
    expect(f).toEqual({
      supported: true,
      emptyOverheadP50Ms: empty10.overheadMs.p50,
      emptyOverheadRate: 10,
      emptyMaxRate: micro.emptyMaxRate.sustainableRate,
      pingpongPerS: pp.messagesPerS,
      pingpongP99Ms: pp.rttNs.p99! / 1e6,
      divideMs: micro.divide.find((d) => d.items === 10_000)!.totalNs / 1e6,
      bigPerS: micro.big.find((b) => b.entities === 1000)!.messagesPerS,
      bigEntities: 1000,
    });
  });

  it("leaves out what was not measured and passes a not-supported reason on", () => {
    const f = microFigures({
      supported: true,
      overhead: [],
      emptyMaxRate: { sustainableRate: null, resolution: null },
      pingpong: [],
      divide: [],
      big: [],
      notes: [],
    });
    expect(f).toMatchObject({ supported: true, emptyOverheadP50Ms: null, emptyMaxRate: null, pingpongPerS: null, divideMs: null, bigPerS: null });
    expect(microFigures({ supported: false, reason: "no micro" })).toEqual({ supported: false, reason: "no micro" });
  });
});
