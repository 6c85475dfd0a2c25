/**
 * The gateway's HTTP side on its own (unit tests: the job is a fake `send`;
 * the real job is in target.test.ts): readiness, translation of routes into
 * job requests, validation before anything reaches Kafka, and the named
 * answers for a job that does not answer, and which requests are traced.
 */
import { describe, expect, it } from "vitest";
import { parseSpanLine } from "@sfbench/core";
import { IngressFailed, NoAnswer, type Answer, type Request } from "../src/gateway/bridge.ts";
import { buildHttpApp } from "../src/gateway/http.ts";
import { SpanWriter } from "../src/gateway/spans.ts";

function gateway(answer: (request: Request) => Promise<Answer>, opts: { ready?: boolean; spans?: SpanWriter } = {}) {
  const sent: Request[] = [];
  const app = buildHttpApp({
    send: (request) => {
      sent.push(request);
      return answer(request);
    },
    isReady: () => opts.ready ?? true,
    stats: () => ({ noAnswer: 0 }),
    spans: opts.spans,
    logLevel: "silent",
  });
  return { app, sent };
}

const ok = (body: unknown) => async (): Promise<Answer> => ({ id: "x", status: 200, body: body === undefined ? null : JSON.stringify(body) });

describe("gateway", () => {
  it("answers 503 starting on every route but /health and /stats until the job answered a ping", async () => {
    const { app, sent } = gateway(ok("id"), { ready: false });
    expect((await app.inject({ method: "GET", url: "/health" })).statusCode).toBe(503);
    const route = await app.inject({ method: "POST", url: "/products", payload: {} });
    expect(route.statusCode).toBe(503);
    expect(route.json()).toMatchObject({ error: "starting" });
    expect((await app.inject({ method: "GET", url: "/stats" })).statusCode).toBe(200);
    expect(sent).toEqual([]);
  });

  it("turns each route into one job request of the right type and key and relays the job's answer", async () => {
    const { app, sent } = gateway(ok({ orderId: "o", total: 3 }));
    const res = await app.inject({ method: "POST", url: "/orders/checkout", payload: { cartId: "c1", userId: "u1", colour: "red" } });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ orderId: "o", total: 3 });
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({ type: "cart.checkout", key: "c1", userId: "u1" });
    expect(sent[0]!.orderId).toMatch(/^[0-9a-f-]{36}$/);
    expect(sent[0]).not.toHaveProperty("colour");

    await app.inject({ method: "POST", url: "/shopping-carts/c1/products", payload: { productId: "p1", amount: 2 } });
    expect(sent[1]).toMatchObject({ type: "product.addToCart", key: "p1", cartId: "c1", amount: 2 });
    await app.inject({ method: "GET", url: "/products/p1/freq-items?top=5&depth=2" });
    // keyed by the correlation id (the bridge fills it in): the query's own coordinator
    expect(sent[2]).toEqual({ type: "query.freq", productId: "p1", top: 5, depth: 2 });
  });

  it("answers a 200 without a body when the job sends none, and the job's error status and body as they are", async () => {
    const empty = gateway(ok(undefined));
    const added = await empty.app.inject({ method: "PATCH", url: "/users/u1/credits/add", payload: { credits: 5 } });
    expect(added.statusCode).toBe(200);
    expect(added.body).toBe("");
    const conflict = gateway(async () => ({ id: "x", status: 409, body: JSON.stringify({ error: "empty-cart", message: "cart c1 is empty" }) }));
    const res = await conflict.app.inject({ method: "POST", url: "/orders/checkout", payload: { cartId: "c1", userId: "u1" } });
    expect(res.statusCode).toBe(409);
    expect(res.json()).toEqual({ error: "empty-cart", message: "cart c1 is empty" });
  });

  it("never sends a malformed request to the job", async () => {
    const { app, sent } = gateway(ok("id"));
    const cases = [
      { method: "POST" as const, url: "/products", payload: { price: -1 } },
      { method: "POST" as const, url: "/users", payload: "{nope" },
      { method: "PATCH" as const, url: `/products/${"x".repeat(200)}`, payload: { stock: 1 } },
      { method: "POST" as const, url: "/orders/checkout", payload: { cartId: 7, userId: "u" } },
      { method: "GET" as const, url: "/products/p/freq-items?top=0" },
    ];
    for (const c of cases) {
      const res = await app.inject(c);
      expect(res.statusCode, c.url).toBe(400);
      expect(res.json()).toMatchObject({ error: "bad-request" });
    }
    expect(sent).toEqual([]);
  });

  it("answers 504 no-answer when the job does not answer and 503 ingress-failed when Kafka refuses the request", async () => {
    const lost = gateway(async () => {
      throw new NoAnswer("StateFun did not answer product.get for p1 within 8000 ms");
    });
    const res = await lost.app.inject({ method: "GET", url: "/products/p1" });
    expect(res.statusCode).toBe(504);
    expect(res.json()).toEqual({ error: "no-answer", message: "StateFun did not answer product.get for p1 within 8000 ms" });
    const refused = gateway(async () => {
      throw new IngressFailed("could not write the request to Kafka: broker down");
    });
    const res2 = await refused.app.inject({ method: "GET", url: "/products/p1" });
    expect(res2.statusCode).toBe(503);
    expect(res2.json()).toMatchObject({ error: "ingress-failed" });
  });

  it("puts the trace id and the gateway span's id into the job request and writes the gateway span", async () => {
    let out = "";
    const spans = new SpanWriter({ write: (chunk: string) => (out += chunk) });
    const { app, sent } = gateway(ok({ id: "p1", price: 1, stock: 2 }), { spans });
    const traceId = "0af7651916cd43dd8448eb211c80319c";
    await app.inject({ method: "GET", url: "/products/p1", headers: { traceparent: `00-${traceId}-b7ad6b7169203331-01` } });
    spans.flush();
    const span = parseSpanLine(out.trim());
    expect(span).toMatchObject({ traceId, parentId: "b7ad6b7169203331", kind: "gateway", entity: "product", op: "getProduct", key: "p1" });
    expect(sent[0]).toMatchObject({ traceId, parentSpan: span!.spanId });
  });

  it("writes no span and sends no trace to the job for a traceparent that is not sampled, invalid or missing", async () => {
    let out = "";
    const spans = new SpanWriter({ write: (chunk: string) => (out += chunk) });
    const { app, sent } = gateway(ok({ id: "p1", price: 1, stock: 2 }), { spans });
    const untraced = [
      { traceparent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00" },
      // flags 02: a bit set, but not the sampled one
      { traceparent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-02" },
      { traceparent: "00-not-a-trace-01" },
      {},
    ];
    for (const headers of untraced) {
      expect((await app.inject({ method: "GET", url: "/products/p1", headers })).statusCode).toBe(200);
    }
    spans.flush();
    expect(out).toBe("");
    expect(sent).toHaveLength(untraced.length);
    for (const request of sent) {
      expect(request).not.toHaveProperty("traceId");
      expect(request).not.toHaveProperty("parentSpan");
    }
  });
});
