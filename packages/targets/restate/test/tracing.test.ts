/**
 * SPEC 3 with SFBENCH_TRACE=1: the gateway's span under the caller's sampled
 * traceparent, and a function span for every handler run, each under the
 * span of whoever called it, all in the target's log (its stdout); nothing
 * for a request that is not sampled.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseSpanLine, type Span } from "@sfbench/core";
import { eventually, shopper } from "@sfbench/target-suite";
import { start, type RunningTarget } from "./helpers.ts";

const PORT = 18614;
let t: RunningTarget;

beforeAll(async () => {
  t = await start(PORT, { trace: true });
});
afterAll(async () => {
  await t?.stop();
});

const spansOf = (traceId: string): Span[] =>
  t
    .log()
    .split("\n")
    .map(parseSpanLine)
    .filter((s): s is Span => s !== null && s.traceId === traceId);

/** The spans of a trace once `count` of them are in the log (three processes write them). */
async function waitForSpans(traceId: string, count: number): Promise<Span[]> {
  const deadline = performance.now() + 10_000;
  for (;;) {
    const spans = spansOf(traceId);
    if (spans.length >= count || performance.now() > deadline) return spans;
    await new Promise((r) => setTimeout(r, 50));
  }
}

const name = (s: Span) => `${s.entity}.${s.op}`;

describe("tracing (SPEC 3)", () => {
  it("spans a checkout: gateway, the cart's saga, and the product, user and order handlers it called", async () => {
    const s = shopper(t.url);
    const p1 = await s.product(2, 10);
    const p2 = await s.product(3, 10);
    const u = await s.user(100);
    const c = await s.cart({ [p1]: 1, [p2]: 1 });
    const traceId = "0af7651916cd43dd8448eb211c80319c";
    const parent = "b7ad6b7169203331";
    expect((await s.checkout(c, u, { traceparent: `00-${traceId}-${parent}-01` })).status).toBe(200);

    // gateway, cart.checkout, 2 x retractStock, retractCredits, order.create, 2 x addCoPurchases
    const spans = await waitForSpans(traceId, 8);
    const gateway = spans.filter((x) => x.kind === "gateway");
    expect(gateway).toHaveLength(1);
    expect(gateway[0]).toMatchObject({ parentId: parent, entity: "order", op: "checkout", key: c });
    const saga = spans.find((x) => name(x) === "cart.checkout")!;
    expect(saga).toMatchObject({ kind: "function", key: c, parentId: gateway[0]!.spanId });
    const called = spans.filter((x) => x.parentId === saga.spanId);
    expect(called.map(name).sort()).toEqual(
      ["order.create", "product.addCoPurchases", "product.addCoPurchases", "product.retractStock", "product.retractStock", "user.retractCredits"].sort(),
    );
    expect(
      called
        .filter((x) => x.op === "retractStock")
        .map((x) => x.key)
        .sort(),
    ).toEqual([p1, p2].sort());
    expect(called.find((x) => x.op === "retractCredits")!.key).toBe(u);
    // the answer waits for the saga; the co-purchase messages are handled after it
    expect(saga.start).toBeGreaterThanOrEqual(gateway[0]!.start);
    expect(saga.end).toBeLessThanOrEqual(gateway[0]!.end);
    for (const x of called.filter((y) => y.op !== "addCoPurchases")) {
      expect(x.start).toBeGreaterThanOrEqual(saga.start);
      expect(x.end).toBeLessThanOrEqual(saga.end);
    }
    expect(new Set(spans.map((x) => x.spanId)).size).toBe(spans.length);
  });

  it("spans freq-items as a tree of visits under a sampled traceparent", async () => {
    const s = shopper(t.url);
    for (const id of ["tr-a", "tr-b", "tr-c"]) await s.namedProduct(id);
    await s.buy(["tr-a", "tr-b"]);
    await s.buy(["tr-b", "tr-c"]);
    // the co-purchase counts land after the answers (these polls are not sampled: no spans)
    await eventually(async () => ((await t.call("GET", "/products/tr-a/freq-items?top=1&depth=2")).body as string[]).length === 2);
    const traceId = "1bf7651916cd43dd8448eb211c80319d";
    const parent = "b7ad6b7169203332";
    const answer = await t.call("GET", "/products/tr-a/freq-items?top=1&depth=2", undefined, { traceparent: `00-${traceId}-${parent}-01` });
    expect((answer.body as string[]).sort()).toEqual(["tr-b", "tr-c"]);
    // gateway, product.get, the visits of tr-a and tr-b
    const trace = await waitForSpans(traceId, 4);
    const gateway = trace.find((x) => x.kind === "gateway")!;
    expect(gateway).toMatchObject({ entity: "product", op: "freqItems", key: "tr-a", parentId: parent });
    const root = trace.find((x) => name(x) === "product.top" && x.key === "tr-a")!;
    expect(root.parentId).toBe(gateway.spanId);
    expect(trace.find((x) => name(x) === "product.top" && x.key === "tr-b")!.parentId).toBe(root.spanId);
    expect(trace.find((x) => name(x) === "product.get")!.parentId).toBe(gateway.spanId);
  });
});
