import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseSpanLine, type Span } from "@sfbench/core";
import { shopper, startTarget, testDatabase, type RunningTarget } from "./helpers.ts";

let t: RunningTarget;
let out = "";

beforeAll(async () => {
  t = await startTarget(await testDatabase("tracing"), { trace: true, traceSink: { write: (chunk: string) => (out += chunk) } });
});
afterAll(async () => {
  await t?.close();
});

/** Until what the writer holds is written: it writes every 50 ms. */
const flushed = () => new Promise((resolve) => setTimeout(resolve, 120));

/** Span lines written so far (after the writer's next flush). */
async function spans(): Promise<Span[]> {
  await flushed();
  return out
    .split("\n")
    .filter(Boolean)
    .map((line) => {
      const span = parseSpanLine(line);
      if (!span) throw new Error(`not a span line: ${line}`);
      return span;
    });
}

describe("tracing (SPEC 3)", () => {
  it("writes a gateway span under the caller's traceparent and function spans under the gateway span", async () => {
    const s = shopper(t);
    const p1 = await s.product(2, 10);
    const p2 = await s.product(3, 10);
    const u = await s.user(100);
    const c = await s.cart({ [p1]: 1, [p2]: 1 });
    await flushed(); // the setup requests' spans, before the ones looked at
    out = "";
    const traceId = "0af7651916cd43dd8448eb211c80319c";
    const parent = "b7ad6b7169203331";
    const answer = await t.call("POST", "/orders/checkout", { cartId: c, userId: u }, { traceparent: `00-${traceId}-${parent}-01` });
    expect(answer.status).toBe(200);

    const lines = await spans();
    const gateway = lines.filter((x) => x.kind === "gateway");
    expect(gateway).toHaveLength(1);
    expect(gateway[0]).toMatchObject({ traceId, parentId: parent, entity: "order", op: "checkout", key: c });
    const fns = lines.filter((x) => x.kind === "function");
    expect(fns.map((x) => `${x.entity}.${x.op}`).sort()).toEqual(
      ["cart.read", "order.create", "product.retractStock", "product.retractStock", "user.retractCredits"].sort(),
    );
    expect(
      fns
        .filter((x) => x.entity === "product")
        .map((x) => x.key)
        .sort(),
    ).toEqual([p1, p2].sort());
    for (const span of fns) {
      expect(span.traceId).toBe(traceId);
      expect(span.parentId).toBe(gateway[0]!.spanId);
      expect(span.start).toBeGreaterThanOrEqual(gateway[0]!.start);
      expect(span.end).toBeLessThanOrEqual(gateway[0]!.end);
      expect(span.end).toBeGreaterThanOrEqual(span.start);
    }
    expect(new Set(lines.map((x) => x.spanId)).size).toBe(lines.length);
  });

  it("spans freq-items visits under a sampled traceparent", async () => {
    await t.call("PATCH", "/products/root", { price: 1 });
    await flushed();
    out = "";
    const traceId = "1bf7651916cd43dd8448eb211c80319d";
    const parent = "b7ad6b7169203332";
    expect((await t.call("GET", "/products/root/freq-items?top=2&depth=2", undefined, { traceparent: `00-${traceId}-${parent}-01` })).status).toBe(200);
    const lines = await spans();
    const gateway = lines.find((x) => x.kind === "gateway");
    expect(gateway).toMatchObject({ traceId, entity: "product", op: "freqItems", key: "root", parentId: parent });
    expect(lines.filter((x) => x.kind === "function")).toEqual([
      expect.objectContaining({ entity: "product", op: "top", key: "root", parentId: gateway!.spanId, traceId }),
    ]);
  });
});
