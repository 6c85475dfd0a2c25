/**
 * SPEC 3 span lines from inside workerd reach the target's stdout unchanged,
 * one per line, under the caller's sampled traceparent: what the breakdown
 * reads. A request that is not sampled writes none.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseSpanLine, type Span } from "@sfbench/core";
import { eventually, shopper } from "@sfbench/target-suite";
import { start, type RunningTarget } from "./helpers.ts";

let t: RunningTarget;

beforeAll(async () => {
  t = await start(18713, { trace: true });
});
afterAll(async () => {
  await t?.stop();
});

/** The span lines of one trace; every line that mentions it must parse as a span. */
function spansOf(traceId: string): Span[] {
  return t
    .log()
    .split("\n")
    .filter((line) => line.includes(traceId))
    .map((line) => {
      const span = parseSpanLine(line);
      if (!span) throw new Error(`not a plain span line: ${line}`);
      return span;
    });
}

describe("tracing (SPEC 3)", () => {
  it("writes the gateway span, the cart's checkout span and the spans of the objects it calls, as a tree", async () => {
    const s = shopper(t.url);
    const p1 = await s.product(2, 10);
    const p2 = await s.product(3, 10);
    const u = await s.user(100);
    const c = await s.cart({ [p1]: 1, [p2]: 1 });
    const traceId = "0af7651916cd43dd8448eb211c80319c";
    const parent = "b7ad6b7169203331";
    expect((await s.checkout(c, u, { traceparent: `00-${traceId}-${parent}-01` })).status).toBe(200);

    await eventually(async () => spansOf(traceId).some((x) => x.kind === "gateway"));
    const spans = spansOf(traceId);
    const gateway = spans.filter((x) => x.kind === "gateway");
    expect(gateway).toHaveLength(1);
    expect(gateway[0]).toMatchObject({ parentId: parent, entity: "order", op: "checkout", key: c });
    const byName = (name: string) => spans.filter((x) => `${x.entity}.${x.op}` === name);
    const [checkout] = byName("cart.checkout");
    expect(checkout).toMatchObject({ kind: "function", key: c, parentId: gateway[0]!.spanId });
    expect(
      byName("product.retractStock")
        .map((x) => x.key)
        .sort(),
    ).toEqual([p1, p2].sort());
    expect(byName("user.retractCredits").map((x) => x.key)).toEqual([u]);
    expect(byName("order.create")).toHaveLength(1);
    for (const span of spans.filter((x) => x.kind === "function" && x !== checkout)) {
      expect(span.parentId).toBe(checkout!.spanId);
      expect(span.start).toBeGreaterThanOrEqual(checkout!.start);
      expect(span.end).toBeLessThanOrEqual(checkout!.end);
    }
    expect(checkout!.start).toBeGreaterThanOrEqual(gateway[0]!.start);
    expect(checkout!.end).toBeLessThanOrEqual(gateway[0]!.end);
    expect(new Set(spans.map((x) => x.spanId)).size).toBe(spans.length);
  });

  it("spans every product visit of freq-items, children under their parent visit", async () => {
    const s = shopper(t.url);
    for (const id of ["tr-a", "tr-b", "tr-c"]) await s.namedProduct(id);
    await s.buy(["tr-a", "tr-b"]);
    await s.buy(["tr-b", "tr-c"]);
    await eventually(async () => ((await t.call("GET", "/products/tr-b/freq-items?top=2")).body as string[]).length === 2);
    const traceId = "1bf7651916cd43dd8448eb211c80319d";
    expect((await t.call("GET", "/products/tr-a/freq-items?top=1&depth=2", undefined, { traceparent: `00-${traceId}-b7ad6b7169203332-01` })).body).toEqual([
      "tr-b",
      "tr-c",
    ]);
    await eventually(async () => spansOf(traceId).length === 3);
    const [gateway, ...visits] = spansOf(traceId).sort((a, b) => (a.kind === "gateway" ? -1 : b.kind === "gateway" ? 1 : 0));
    expect(gateway).toMatchObject({ kind: "gateway", entity: "product", op: "freqItems", key: "tr-a" });
    const root = visits.find((x) => x.key === "tr-a")!;
    expect(root).toMatchObject({ op: "top", parentId: gateway!.spanId });
    expect(visits.find((x) => x.key === "tr-b")).toMatchObject({ op: "top", parentId: root.spanId });
  });
});
