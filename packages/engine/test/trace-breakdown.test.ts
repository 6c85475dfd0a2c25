/**
 * The critical path and the breakdown on hand-built span trees (times in µs).
 */
import { describe, expect, it } from "vitest";
import type { Span } from "@sfbench/core";
import { buildBreakdown, traceTimes } from "../src/trace/breakdown.ts";

let next = 1;
const hex = (n: number, digits: number) => n.toString(16).padStart(digits, "0");
const trace = (n: number) => hex(n, 32);

/** A span of trace `t` from `start` to `end` µs (offset from a fixed epoch). */
function span(t: number, kind: Span["kind"], start: number, end: number, parent: Span | string | null, extra: Partial<Span> = {}): Span {
  const T0 = 1_700_000_000_000_000;
  return {
    sfbench: "span",
    traceId: trace(t),
    spanId: hex(next++, 16),
    parentId: parent === null ? null : typeof parent === "string" ? parent : parent.spanId,
    kind,
    op: kind === "gateway" ? "checkout" : "work",
    start: T0 + start,
    end: T0 + end,
    ...extra,
  };
}
const gateway = (t: number, start: number, end: number) => span(t, "gateway", start, end, "ffffffffffffffff", { entity: "order" });
const fn = (parent: Span, entity: Span["entity"], start: number, end: number) =>
  span(Number.parseInt(parent.traceId, 16), "function", start, end, parent, { entity });

describe("traceTimes: the critical path of one trace", () => {
  it("sequential children: each on the path, the gaps are gateway time", () => {
    const g = gateway(1, 0, 1000);
    const spans = [g, fn(g, "cart", 100, 200), fn(g, "product", 200, 500), fn(g, "user", 550, 600), fn(g, "order", 600, 900)];
    expect(traceTimes(spans)).toEqual({
      traceId: trace(1),
      totalUs: 1000,
      gatewayUs: 100 + 50 + 100,
      functionUs: { cart: 100, product: 300, user: 50, order: 300 },
      reparented: 0,
    });
  });

  it("a parallel fan-out: only the child that finished last is on the path", () => {
    const g = gateway(2, 0, 1000);
    // three products in parallel; the slowest ends at 700, and the others are hidden behind it
    const spans = [g, fn(g, "cart", 0, 100), fn(g, "product", 100, 400), fn(g, "product", 120, 700), fn(g, "user", 150, 650), fn(g, "order", 800, 950)];
    const t = traceTimes(spans)!;
    // path: order 800..950, product 120..700, then the other product covers 100..120, cart 0..100
    expect(t.functionUs).toEqual({ order: 150, product: 580 + 20, cart: 100 });
    expect(t.functionUs.user).toBeUndefined();
    // 950..1000 and 700..800: not covered by the path's functions
    expect(t.gatewayUs).toBe(50 + 100);
    expect(t.gatewayUs + Object.values(t.functionUs).reduce((a, b) => a + b, 0)).toBe(t.totalUs);
  });

  it("identical intervals (one statement for several keys) count once", () => {
    const g = gateway(3, 0, 500);
    const spans = [g, fn(g, "product", 100, 300), fn(g, "product", 100, 300), fn(g, "product", 100, 300)];
    expect(traceTimes(spans)!.functionUs).toEqual({ product: 200 });
    expect(traceTimes(spans)!.gatewayUs).toBe(300);
  });

  it("an overlapping earlier child is clipped at the start of the later one", () => {
    const g = gateway(4, 0, 1000);
    // user ends at 600, after product started at 500: only 200..500 of user is on the path
    const spans = [g, fn(g, "user", 200, 600), fn(g, "product", 500, 900)];
    expect(traceTimes(spans)!.functionUs).toEqual({ product: 400, user: 300 });
    expect(traceTimes(spans)!.gatewayUs).toBe(300);
  });

  it("nested spans: a function's children take their share of its time", () => {
    const g = gateway(5, 0, 1000);
    const order = fn(g, "order", 100, 900);
    // order calls product and user in parallel (user finishes last), then its own work
    const spans = [g, order, fn(order, "product", 150, 400), fn(order, "user", 200, 500), fn(order, "cart", 600, 700)];
    const t = traceTimes(spans)!;
    // path inside order: cart 600..700, user 200..500, then product only for 150..200 (before user started)
    expect(t.functionUs).toEqual({ cart: 100, user: 300, product: 50, order: 800 - 100 - 300 - 50 });
    expect(t.gatewayUs).toBe(200);
  });

  it("a span whose parent is missing counts under the gateway span", () => {
    const g = gateway(6, 0, 1000);
    const lost = span(6, "function", 300, 500, "0123456789abcdef", { entity: "product" });
    const t = traceTimes([g, fn(g, "cart", 100, 200), lost])!;
    expect(t.reparented).toBe(1);
    expect(t.functionUs).toEqual({ cart: 100, product: 200 });
    expect(t.gatewayUs).toBe(700);
  });

  it("a child that outlasts the gateway span is clipped to it", () => {
    const g = gateway(7, 0, 1000);
    const t = traceTimes([g, fn(g, "order", 800, 1200), fn(g, "cart", -50, 100)])!;
    expect(t.functionUs).toEqual({ order: 200, cart: 100 });
    expect(t.gatewayUs).toBe(700);
  });

  it("a trace without a gateway span has no times; a span shipped twice counts once", () => {
    const g = gateway(8, 0, 1000);
    expect(traceTimes([span(8, "function", 0, 10, null, { entity: "cart" })])).toBeUndefined();
    const c = fn(g, "cart", 100, 300);
    expect(traceTimes([g, c, { ...c }])!.functionUs).toEqual({ cart: 200 });
  });
});

describe("buildBreakdown: means per group in the chart's shape", () => {
  const checkout = (t: number, product: number, gatewayEnd: number) => {
    const g = gateway(t, 0, gatewayEnd);
    return [g, fn(g, "cart", 0, 100), fn(g, "product", 100, 100 + product), fn(g, "product", 100, 100 + product)];
  };

  it("overall and per cart size, with the network time from the client latency", () => {
    const spans = [...checkout(101, 400, 1000), ...checkout(102, 600, 2000), ...checkout(103, 1000, 3000), ...checkout(999, 5000, 9000)];
    const measured = new Map([
      [trace(101), { cartSize: "2" }],
      [trace(102), { cartSize: "2" }],
      [trace(103), { cartSize: "3" }],
    ]);
    const b = buildBreakdown({ spans, measured, client: { overall: 3, byCartSize: { "2": 2.5, "3": 4 } } })!;
    expect(b).toEqual({
      overall: { gatewayMs: 1.233, functionMs: { cart: 0.1, product: 0.667 }, networkMs: 1, count: 3 },
      byCartSize: {
        "2": { gatewayMs: 0.9, functionMs: { cart: 0.1, product: 0.5 }, networkMs: 1, count: 2 },
        "3": { gatewayMs: 1.9, functionMs: { cart: 0.1, product: 1 }, networkMs: 1, count: 1 },
      },
      coverage: { requests: 3, traced: 3, complete: 3, share: 1, clientMs: 3, sumMs: 3, spansMs: 2, deviation: 0, flagged: false, flags: [] },
    });
    // trace 999 is not a measured request; gateway + functions = the mean gateway span
    const o = b.overall;
    expect(o.gatewayMs + o.functionMs.cart! + o.functionMs.product!).toBeCloseTo(2, 2);
  });

  it("clamps network + queueing at 0 and says so", () => {
    const b = buildBreakdown({ spans: checkout(201, 400, 2000), client: { overall: 1.5 } })!;
    expect(b.overall.networkMs).toBe(0);
    expect(b.notes).toEqual(["overall: the mean client latency (1.500 ms) is below the mean gateway span (2.000 ms); network + queueing clamped to 0"]);
    // the parts (2 ms of spans) do not add up to the 1.5 ms the client measured: flagged, not fact
    expect(b.coverage).toMatchObject({ sumMs: 2, clientMs: 1.5, deviation: 0.333, flagged: true });
    expect(b.coverage!.flags).toEqual([
      "the parts add up to 2.00 ms, 33.3% off the measured mean latency of 1.50 ms (needs <= 10%): the spans last longer than the requests took",
    ]);
  });

  it("flags a breakdown made from too few of the phase's requests, counting a trace with a lost parent as incomplete", () => {
    const lost = span(602, "function", 0, 10, "0123456789abcdef", { entity: "cart" });
    const spans = [...checkout(601, 400, 1000), gateway(602, 0, 1000), lost, ...checkout(603, 400, 1000), ...checkout(604, 400, 1000)];
    // 4 traced, 3 complete, of 10 answered requests in the phase
    const b = buildBreakdown({ spans, client: { overall: 2 }, requests: 10 })!;
    expect(b.coverage).toMatchObject({ requests: 10, traced: 4, complete: 3, share: 0.3, flagged: true });
    expect(b.coverage!.flags).toEqual(["only 30% of the phase's 10 requests produced a complete trace (needs >= 90%)"]);
    const all = buildBreakdown({ spans: checkout(605, 400, 1000), client: { overall: 2 }, requests: 1 })!;
    expect(all.coverage).toMatchObject({ share: 1, flagged: false });
  });

  it("every trace with a gateway span is measured when no list is given; notes what it left out", () => {
    const lost = span(302, "function", 0, 10, "0123456789abcdef", { entity: "cart" });
    const spans = [...checkout(301, 400, 1000), span(303, "function", 0, 10, null, { entity: "user" }), gateway(302, 0, 1000), lost];
    const b = buildBreakdown({ spans, client: { overall: 2 } })!;
    expect(b.overall.count).toBe(2);
    expect(b.byCartSize).toBeUndefined();
    expect(b.notes).toEqual(["1 traces without a gateway span left out", "1 spans whose parent is missing counted under their trace's gateway span"]);
  });

  it("notes measured requests without spans and groups without client latency", () => {
    const measured = new Map([
      [trace(401), { cartSize: "4" }],
      [trace(402), { cartSize: "5" }],
    ]);
    const b = buildBreakdown({ spans: checkout(401, 400, 1000), measured, client: { overall: 2, byCartSize: {} } })!;
    expect(b.byCartSize).toBeUndefined();
    expect(b.notes).toEqual([
      "byCartSize.4: 1 traced requests but no client latency for this group; left out",
      "1 of 2 measured requests have no spans; the means are over the 1 that have",
    ]);
  });

  it("is undefined when no measured request has a gateway span", () => {
    expect(buildBreakdown({ spans: [], client: { overall: 1 } })).toBeUndefined();
    expect(buildBreakdown({ spans: checkout(501, 1, 10), measured: new Map(), client: { overall: 1 } })).toBeUndefined();
  });
});
