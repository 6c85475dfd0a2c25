/**
 * The gateway on its own, over an in-memory Shop and Micro (Fastify's
 * inject, no socket, no database): the readiness gate with each target's
 * "starting" message, input validation and the mapping of app errors to
 * statuses, and which requests get a trace. The targets' own tests run the
 * same gateway over PostgreSQL.
 */
import { describe, expect, it } from "vitest";
import { parseSpanLine, type Span } from "@sfbench/core";
import { AppError, buildHttpApp, parseEnv, ShopEnv, SpanWriter, type Micro, type Shop, type Trace } from "../src/index.ts";

const unused = () => Promise.reject(new Error("not used by this test"));

const shop: Shop = {
  createProduct: unused,
  upsertProduct: unused,
  getProduct: (id) => (id === "p1" ? Promise.resolve({ id, price: 3, stock: 5 }) : Promise.reject(new AppError("not-found", `product ${id} not found`))),
  freqItems: unused,
  createUser: unused,
  getUser: unused,
  addCredits: unused,
  createCart: () => Promise.resolve("c1"),
  getCart: unused,
  addToCart: unused,
  checkout: () => Promise.reject(new AppError("insufficient-credits", "user u1 has fewer than 9 credits")),
  getOrder: unused,
};
const micro: Micro = {
  empty: () => Promise.resolve({ handlerNs: 1 }),
  math: unused,
  sleep: unused,
  io: unused,
  pingpong: unused,
  divide: unused,
  big: unused,
};

function gateway(ready: { now: boolean }) {
  return buildHttpApp({ shop, micro, isReady: () => ready.now, startingWhat: "creating the database schema and launching DBOS", logLevel: "silent" });
}

describe("the gateway", () => {
  it("answers 503 with the target's starting message on /health and every route until the target is ready", async () => {
    const ready = { now: false };
    const app = gateway(ready);
    const health = await app.inject({ method: "GET", url: "/health" });
    expect(health.statusCode).toBe(503);
    expect(health.json()).toEqual({ error: "starting", message: "creating the database schema and launching DBOS" });
    expect((await app.inject({ method: "POST", url: "/shopping-carts" })).json()).toMatchObject({ message: "creating the database schema and launching DBOS" });
    ready.now = true;
    expect((await app.inject({ method: "GET", url: "/health" })).json()).toEqual({ status: "ok" });
    expect((await app.inject({ method: "POST", url: "/shopping-carts" })).json()).toBe("c1");
    await app.close();
  });

  it("refuses invalid input with 400 naming the field, before the shop sees it", async () => {
    const app = gateway({ now: true });
    const answer = await app.inject({ method: "POST", url: "/orders/checkout", payload: { cartId: "c1" } });
    expect(answer.statusCode).toBe(400);
    expect(answer.json()).toMatchObject({ error: "bad-request", message: expect.stringContaining("userId") });
    await app.close();
  });

  it("turns the shop's not-found into 404 and its conflicts into 409 with their codes", async () => {
    const app = gateway({ now: true });
    expect((await app.inject({ method: "GET", url: "/products/p1" })).json()).toEqual({ id: "p1", price: 3, stock: 5 });
    const missing = await app.inject({ method: "GET", url: "/products/p2" });
    expect([missing.statusCode, missing.json().error]).toEqual([404, "not-found"]);
    const refused = await app.inject({ method: "POST", url: "/orders/checkout", payload: { cartId: "c1", userId: "u1" } });
    expect([refused.statusCode, refused.json().error]).toEqual([409, "insufficient-credits"]);
    await app.close();
  });
});

describe("the gateway's tracing (SPEC 3)", () => {
  /** A traced gateway whose shop records the trace each getProduct was handed. */
  function tracedGateway() {
    let out = "";
    const spans = new SpanWriter({ write: (chunk: string) => (out += chunk) });
    const handed: (Trace | undefined)[] = [];
    const recording: Shop = {
      ...shop,
      getProduct: (id, trace) => {
        handed.push(trace);
        return shop.getProduct(id);
      },
    };
    const app = buildHttpApp({ shop: recording, micro, isReady: () => true, startingWhat: "starting", spans, logLevel: "silent" });
    const written = (): Span[] => {
      spans.flush();
      return out
        .split("\n")
        .filter(Boolean)
        .map((line) => parseSpanLine(line)!);
    };
    return { app, handed, written };
  }
  const traceId = "0af7651916cd43dd8448eb211c80319c";
  const parent = "b7ad6b7169203331";

  it("writes a gateway span under a sampled traceparent and hands its trace to the shop", async () => {
    const { app, handed, written } = tracedGateway();
    const answer = await app.inject({ method: "GET", url: "/products/p1", headers: { traceparent: `00-${traceId}-${parent}-01` } });
    expect(answer.statusCode).toBe(200);
    const spans = written();
    expect(spans).toEqual([expect.objectContaining({ traceId, parentId: parent, kind: "gateway", entity: "product", op: "getProduct", key: "p1" })]);
    expect(handed).toEqual([expect.objectContaining({ traceId, spanId: spans[0]!.spanId })]);
    await app.close();
  });

  it("gives an unsampled, missing or invalid traceparent no trace: no span, nothing handed to the shop", async () => {
    const { app, handed, written } = tracedGateway();
    for (const headers of [{ traceparent: `00-${traceId}-${parent}-00` }, {}, { traceparent: "00-not-a-trace-01" }]) {
      expect((await app.inject({ method: "GET", url: "/products/p1", headers })).statusCode).toBe(200);
    }
    expect(written()).toEqual([]);
    expect(handed).toEqual([undefined, undefined, undefined]);
    await app.close();
  });
});

describe("the environment", () => {
  it("has the defaults every target shares, and a target's own variables extend it", () => {
    const env = parseEnv(ShopEnv.extend({ EXTRA: ShopEnv.shape.PG_POOL_SIZE }), { DATABASE_URL: "postgres://x/y", SFBENCH_TRACE: "1", EXTRA: "7" });
    expect(env).toMatchObject({ PORT: 8080, HOST: "127.0.0.1", SFBENCH_TRACE: true, PG_POOL_SIZE: 20, LOG_LEVEL: "info", EXTRA: 7 });
  });

  it("names every variable at fault", () => {
    expect(() => parseEnv(ShopEnv, { PORT: "0" })).toThrow(/PORT: .*\n  DATABASE_URL: /);
  });
});
