/**
 * The gateway's micro routes on their own (the job is a fake `send`; the real
 * job is in micro.test.ts): each route becomes one `micro.*` request with the
 * validated fields, the no-answer deadline grows with the work asked for, and
 * bad input is a 400 naming the field that never reaches Kafka.
 */
import { describe, expect, it } from "vitest";
import type { Answer, Request } from "../src/gateway/bridge.ts";
import { buildHttpApp } from "../src/gateway/http.ts";
import { MICRO_BUDGET } from "../src/gateway/micro.ts";

function gateway() {
  const sent: { request: Request; extraMs: number | undefined }[] = [];
  const app = buildHttpApp({
    send: async (request, extraMs) => {
      sent.push({ request, extraMs });
      return { id: "x", status: 200, body: JSON.stringify({ handlerNs: 5 }) } satisfies Answer;
    },
    isReady: () => true,
    stats: () => ({}),
    logLevel: "silent",
  });
  return { app, sent };
}

describe("gateway micro routes", () => {
  it("sends one micro request per route with its fields and defaults", async () => {
    const { app, sent } = gateway();
    const calls: [string, string, unknown][] = [
      ["GET", "/micro/empty", undefined],
      ["GET", "/micro/math?n=5000&key=k", undefined],
      ["GET", "/micro/sleep", undefined],
      ["POST", "/micro/io", { key: "io-1", bytes: 100 }],
      ["POST", "/micro/pingpong", { pairs: 2, messages: 10, bytes: 64 }],
      ["POST", "/micro/divide", { items: 100, fanout: 4, seed: 9 }],
      ["POST", "/micro/big", { entities: 3, messages: 30, seed: 1 }],
    ];
    for (const [method, url, payload] of calls) {
      const res = await app.inject({ method: method as "GET" | "POST", url, ...(payload === undefined ? {} : { payload: payload as object }) });
      expect({ url, status: res.statusCode }).toEqual({ url, status: 200 });
    }
    expect(sent.map((s) => s.request)).toMatchObject([
      { type: "micro.empty", key: "micro" },
      { type: "micro.math", key: "k", n: 5000 },
      { type: "micro.sleep", key: "micro", ms: 100 },
      { type: "micro.io", key: "io-1", bytes: 100 },
      { type: "micro.pingpong", pairs: 2, messages: 10, bytes: 64 },
      { type: "micro.divide", count: 100, fanout: 4, leaf: 1000, seed: 9 },
      { type: "micro.big", entities: 3, messages: 30, seed: 1 },
    ]);
    // pingpong is keyed by its correlation id (its own coordinator); divide and big by a fresh root / round entity
    expect(sent[4]!.request.key).toBeUndefined();
    expect(sent[5]!.request.key).toMatch(/^divide-[0-9a-f-]{36}$/);
    expect(sent[6]!.request.key).toMatch(/^big-run-[0-9a-f-]{36}$/);
  });

  it("waits longer for larger messaging requests before answering 504 no-answer", async () => {
    const { app, sent } = gateway();
    await app.inject({ method: "POST", url: "/micro/pingpong", payload: { pairs: 1, messages: 100_000, bytes: 65_536 } });
    await app.inject({ method: "POST", url: "/micro/pingpong", payload: { pairs: 1, messages: 1, bytes: 0 } });
    await app.inject({ method: "POST", url: "/micro/divide", payload: { items: 1_000_000, fanout: 2, seed: 0 } });
    await app.inject({ method: "POST", url: "/micro/big", payload: { entities: 10_000, messages: 1_000_000, seed: 0 } });
    await app.inject({ method: "GET", url: "/micro/sleep?ms=10000" });
    const extra = sent.map((s) => s.extraMs);
    expect(extra).toEqual([
      MICRO_BUDGET.pingpong(1, 100_000, 65_536),
      MICRO_BUDGET.pingpong(1, 1, 0),
      MICRO_BUDGET.divide(1_000_000),
      MICRO_BUDGET.big(10_000, 1_000_000),
      10_000,
    ]);
    expect(extra[0]).toBeGreaterThan(extra[1]! * 1000);
  });

  it("answers 400 naming the field and sends nothing for bad input", async () => {
    const { app, sent } = gateway();
    const cases: [string, string, unknown, string][] = [
      ["GET", "/micro/math?n=0", undefined, "n"],
      ["GET", "/micro/math?n=abc", undefined, "n"],
      ["GET", "/micro/sleep?ms=10001", undefined, "ms"],
      ["GET", `/micro/empty?key=${"k".repeat(129)}`, undefined, "key"],
      ["POST", "/micro/io", { key: "a", bytes: 0 }, "bytes"],
      ["POST", "/micro/io", undefined, "body"],
      ["POST", "/micro/pingpong", { pairs: 1, messages: 100_001, bytes: 0 }, "messages"],
      ["POST", "/micro/pingpong", { pairs: 1, messages: 1, bytes: 1.5 }, "bytes"],
      ["POST", "/micro/divide", { items: 0, fanout: 2, seed: 0 }, "items"],
      ["POST", "/micro/divide", { items: 10, fanout: 17, seed: 0 }, "fanout"],
      ["POST", "/micro/divide", { items: 10, fanout: 2 }, "seed"],
      ["POST", "/micro/big", { entities: 10_001, messages: 1, seed: 0 }, "entities"],
      ["POST", "/micro/big", { entities: 2, messages: 1, seed: 2 ** 31 }, "seed"],
    ];
    for (const [method, url, payload, field] of cases) {
      const res = await app.inject({ method: method as "GET" | "POST", url, ...(payload === undefined ? {} : { payload: payload as object }) });
      expect({ url, payload, status: res.statusCode }).toEqual({ url, payload, status: 400 });
      expect(res.json<{ error: string; message: string }>()).toMatchObject({ error: "bad-request" });
      expect(res.json<{ message: string }>().message.startsWith(`${field}:`)).toBe(true);
    }
    expect(sent).toEqual([]);
  });
});
