/**
 * SPEC 8 microbenchmark routes on the target as sfbench starts it (provider-local:
 * gateway, Kafka ingress and egress, the StateFun job): every route answers, and its results are checked
 * against values computed here (payload hash, divide's sorted output,
 * histogram sums, delivered counts); bad input answers 400 naming the field.
 */
import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTarget, stopTarget, type StartedTarget } from "@sfbench/provider-local";
import { call, freePort, TARGET } from "./helpers.ts";

let target: StartedTarget;

beforeAll(async () => {
  await stopTarget(TARGET);
  target = await startTarget(TARGET, { port: await freePort() });
});

afterAll(async () => {
  await stopTarget(TARGET);
});

async function ok(method: string, path: string, body?: unknown): Promise<Record<string, unknown>> {
  const answer = await call(target.url, method, path, body);
  if (answer.status !== 200) throw new Error(`${method} ${path} -> ${answer.status} ${answer.text}`);
  return answer.body as Record<string, unknown>;
}

function expectHandlerNs(body: Record<string, unknown>): void {
  expect(Number.isInteger(body.handlerNs)).toBe(true);
  expect(body.handlerNs).toBeGreaterThan(0);
}

/** SPEC 8's payload: byte i is "a".."z"[i % 26]. */
function payloadSha256(bytes: number): string {
  const alphabet = "abcdefghijklmnopqrstuvwxyz";
  let s = "";
  for (let i = 0; i < bytes; i++) s += alphabet[i % 26];
  return createHash("sha256").update(s, "ascii").digest("hex");
}

/** SPEC 8's divide answer for items and seed, computed here. */
function divideExpected(items: number, seed: number): { first: number; last: number; checksum: number } {
  const values: number[] = [];
  let x = BigInt(seed);
  for (let i = 0; i < items; i++) {
    x = (1103515245n * x + 12345n) % 2n ** 31n;
    values.push(Number(x % 1_000_000n));
  }
  values.sort((a, b) => a - b);
  let checksum = 0n;
  values.forEach((v, i) => (checksum = (checksum + BigInt(v) * BigInt(i + 1)) % (2n ** 31n - 1n)));
  return { first: values[0]!, last: values[values.length - 1]!, checksum: Number(checksum) };
}

describe("statefun micro routes (SPEC 8)", () => {
  it("empty, math and sleep answer with the handler's own time", async () => {
    expectHandlerNs(await ok("GET", "/micro/empty"));
    expectHandlerNs(await ok("GET", "/micro/empty?key=other-entity"));
    const math = await ok("GET", "/micro/math?n=200000");
    expect(math.n).toBe(200000);
    expect(Math.abs((math.pi as number) - Math.PI)).toBeLessThan(0.05);
    expect((await ok("GET", "/micro/math")).n).toBe(1000);
    const sleep = await ok("GET", "/micro/sleep?ms=120");
    expect(sleep.ms).toBe(120);
    expect(sleep.handlerNs).toBeGreaterThanOrEqual(120e6);
  });

  it("sleep does not hold up other requests to the same entity", async () => {
    const slow = ok("GET", "/micro/sleep?ms=3000&key=sleepy");
    await new Promise((r) => setTimeout(r, 200));
    const started = Date.now();
    expectHandlerNs(await ok("GET", "/micro/empty?key=sleepy"));
    expect(Date.now() - started).toBeLessThan(2_000);
    expect((await slow).handlerNs).toBeGreaterThanOrEqual(3000e6);
  });

  it("io writes and reads back the payload through the function's persisted state", async () => {
    for (const bytes of [1, 26, 4096, 1_048_576]) {
      const io = await ok("POST", "/micro/io", { key: `io-${bytes}`, bytes });
      expect(io).toMatchObject({ key: `io-${bytes}`, bytes, sha256: payloadSha256(bytes) });
      expectHandlerNs(io);
    }
  });

  it("pingpong completes pairs x messages round trips, counted in the histogram", async () => {
    for (const [pairs, messages, bytes] of [
      [1, 50, 0],
      [16, 40, 64],
      [4, 20, 65_536],
    ] as const) {
      const pp = await ok("POST", "/micro/pingpong", { pairs, messages, bytes });
      expect(pp).toMatchObject({ pairs, bytes, messages: pairs * messages });
      const histogram = pp.histogram as [number | null, number][];
      expect(histogram).toHaveLength(22);
      expect(histogram[0]).toEqual([1000, expect.any(Number)]);
      expect(histogram[20]![0]).toBe(5e9);
      expect(histogram[21]![0]).toBeNull();
      expect(histogram.reduce((n, [, c]) => n + c, 0)).toBe(pairs * messages);
      expect(pp.totalNs).toBeGreaterThan(0);
      expectHandlerNs(pp);
    }
  });

  it("divide sorts across entities: first, last and checksum match the spec's generator", async () => {
    for (const [items, fanout, leaf, seed] of [
      [10_000, 4, 1000, 42],
      [5_000, 2, 16, 7],
      [10, 16, 1000, 2147483647],
    ] as const) {
      const d = await ok("POST", "/micro/divide", { items, fanout, leaf, seed });
      expect(d).toMatchObject({ items, ...divideExpected(items, seed) });
      expectHandlerNs(d);
      expect(d.totalNs).toBeGreaterThan(0);
      if (items > leaf) expect(d.entities).toBeGreaterThan(fanout);
      else expect(d.entities).toBe(1);
    }
    // leaf defaults to 1000: 10,000 items in 4 parts of 2,500, each in 4 of 625 -> 1 + 4 + 16 entities
    expect((await ok("POST", "/micro/divide", { items: 10_000, fanout: 4, seed: 1 })).entities).toBe(21);
  });

  it("big delivers every message between the entities", async () => {
    for (const [entities, messages] of [
      [2, 1],
      [50, 5_000],
      [1_000, 20_000],
    ] as const) {
      const b = await ok("POST", "/micro/big", { entities, messages, seed: 3 });
      expect(b).toMatchObject({ entities, messages, delivered: messages });
      expectHandlerNs(b);
    }
  });

  it("answers the largest requests the spec allows, within their no-answer deadline", async () => {
    const divide = await ok("POST", "/micro/divide", { items: 1_000_000, fanout: 2, seed: 1 });
    expect(divide).toMatchObject({ items: 1_000_000, ...divideExpected(1_000_000, 1) });
    const big = await ok("POST", "/micro/big", { entities: 10_000, messages: 1_000_000, seed: 11 });
    expect(big).toMatchObject({ entities: 10_000, messages: 1_000_000, delivered: 1_000_000 });
    const pp = await ok("POST", "/micro/pingpong", { pairs: 64, messages: 100, bytes: 65_536 });
    expect(pp).toMatchObject({ pairs: 64, messages: 6400 });
  });

  it("answers 400 naming the field for bad input", async () => {
    const cases: [string, string, unknown, string][] = [
      ["GET", "/micro/math?n=0", undefined, "n"],
      ["GET", "/micro/math?n=1.5", undefined, "n"],
      ["GET", "/micro/sleep?ms=10001", undefined, "ms"],
      ["GET", `/micro/empty?key=${"k".repeat(129)}`, undefined, "key"],
      ["POST", "/micro/io", { key: "a", bytes: 1_048_577 }, "bytes"],
      ["POST", "/micro/io", { bytes: 10 }, "key"],
      ["POST", "/micro/pingpong", { pairs: 65, messages: 1, bytes: 0 }, "pairs"],
      ["POST", "/micro/pingpong", { pairs: 1, messages: 1 }, "bytes"],
      ["POST", "/micro/divide", { items: 10, fanout: 1, seed: 0 }, "fanout"],
      ["POST", "/micro/divide", { items: 10, fanout: 2, leaf: 15, seed: 0 }, "leaf"],
      ["POST", "/micro/divide", { items: 10, fanout: 2, seed: "1" }, "seed"],
      ["POST", "/micro/big", { entities: 1, messages: 1, seed: 0 }, "entities"],
      ["POST", "/micro/big", { entities: 2, messages: 1_000_001, seed: 0 }, "messages"],
      ["POST", "/micro/big", "[]", "body"],
    ];
    for (const [method, path, body, field] of cases) {
      const answer = await call(target.url, method, path, body);
      expect({ path, body, status: answer.status }).toEqual({ path, body, status: 400 });
      expect((answer.body as { message: string }).message.startsWith(`${field}:`)).toBe(true);
    }
  });
});
