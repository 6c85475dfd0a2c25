/**
 * SPEC 8 (microbenchmarks): run only against targets that declare
 * `"micro": true`. Every answer is checked against what the client can
 * compute itself (src/micro.ts): the io hash, the sorted output of divide,
 * message counts and histogram sums. Bad input answers 400 naming the field.
 */
import { randomUUID } from "node:crypto";
import type { z } from "zod";
import { expectEqual, expectError, expectShape, expectStatus, fail, type Check } from "../check.ts";
import type { Client, Response } from "../client.ts";
import {
  divideExpected,
  histogramProblems,
  MicroBigAnswer,
  MicroDivideAnswer,
  MicroEmptyAnswer,
  MicroIoAnswer,
  MicroMathAnswer,
  MicroPingPongAnswer,
  MicroSleepAnswer,
  microPayloadSha256,
} from "../micro.ts";

/** Messaging routes do real work through the system: give them more than the default 10 s. */
const SLOW = { timeoutMs: 120_000 };

const ok = <S extends z.ZodType>(res: Response, schema: S, what: string): z.infer<S> => expectShape(expectStatus(res, 200, what), schema, what);

const key = () => `cf-micro-${randomUUID().slice(0, 8)}`;

async function timed<T>(work: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = performance.now();
  const value = await work();
  return { value, ms: performance.now() - started };
}

async function pingpong(c: Client, pairs: number, messages: number, bytes: number): Promise<void> {
  const what = `POST /micro/pingpong {pairs: ${pairs}, messages: ${messages}, bytes: ${bytes}}`;
  const a = ok(await c.post("/micro/pingpong", { pairs, messages, bytes }, SLOW), MicroPingPongAnswer, what);
  expectEqual(
    { pairs: a.pairs, messages: a.messages, bytes: a.bytes },
    { pairs, messages: pairs * messages, bytes },
    `${what}: pairs, messages (pairs x messages), bytes`,
  );
  const problems = histogramProblems(a.histogram, pairs * messages);
  if (problems.length) fail(`${what}: ${problems.join("; ")}`);
}

async function divide(c: Client, input: { items: number; fanout: number; leaf?: number; seed: number }): Promise<void> {
  const what = `POST /micro/divide ${JSON.stringify(input)}`;
  const a = ok(await c.post("/micro/divide", input, SLOW), MicroDivideAnswer, what);
  const { items, first, last, checksum, entities } = a;
  expectEqual({ items, first, last, checksum, entities }, divideExpected(input), `${what}: items, first, last, checksum, entities`);
}

async function big(c: Client, entities: number, messages: number, seed: number): Promise<void> {
  const what = `POST /micro/big {entities: ${entities}, messages: ${messages}, seed: ${seed}}`;
  const a = ok(await c.post("/micro/big", { entities, messages, seed }, SLOW), MicroBigAnswer, what);
  expectEqual(
    { entities: a.entities, messages: a.messages, delivered: a.delivered },
    { entities, messages, delivered: messages },
    `${what}: entities, messages, delivered`,
  );
}

interface BadCase {
  id: string;
  method: "GET" | "POST";
  path: string;
  body?: unknown;
  /** the field the error message must name */
  field: string;
}

const bad = (id: string, method: BadCase["method"], path: string, field: string, body?: unknown): BadCase => ({ id, method, path, field, body });

export const MICRO_BAD_CASES: BadCase[] = [
  bad("math-n-zero", "GET", "/micro/math?n=0", "n"),
  bad("math-n-too-big", "GET", "/micro/math?n=10000001", "n"),
  bad("math-n-fraction", "GET", "/micro/math?n=1.5", "n"),
  bad("math-n-text", "GET", "/micro/math?n=many", "n"),
  bad("sleep-ms-negative", "GET", "/micro/sleep?ms=-1", "ms"),
  bad("sleep-ms-too-big", "GET", "/micro/sleep?ms=10001", "ms"),
  bad("io-key-missing", "POST", "/micro/io", "key", { bytes: 10 }),
  bad("io-bytes-missing", "POST", "/micro/io", "bytes", { key: "cf-micro-io" }),
  bad("io-bytes-zero", "POST", "/micro/io", "bytes", { key: "cf-micro-io", bytes: 0 }),
  bad("io-bytes-too-big", "POST", "/micro/io", "bytes", { key: "cf-micro-io", bytes: 1_048_577 }),
  bad("io-bytes-string", "POST", "/micro/io", "bytes", { key: "cf-micro-io", bytes: "10" }),
  bad("pingpong-pairs-missing", "POST", "/micro/pingpong", "pairs", { messages: 1, bytes: 0 }),
  bad("pingpong-pairs-too-many", "POST", "/micro/pingpong", "pairs", { pairs: 65, messages: 1, bytes: 0 }),
  bad("pingpong-messages-zero", "POST", "/micro/pingpong", "messages", { pairs: 1, messages: 0, bytes: 0 }),
  bad("pingpong-messages-too-many", "POST", "/micro/pingpong", "messages", { pairs: 1, messages: 100_001, bytes: 0 }),
  bad("pingpong-bytes-negative", "POST", "/micro/pingpong", "bytes", { pairs: 1, messages: 1, bytes: -1 }),
  bad("pingpong-bytes-too-big", "POST", "/micro/pingpong", "bytes", { pairs: 1, messages: 1, bytes: 65_537 }),
  bad("divide-items-zero", "POST", "/micro/divide", "items", { items: 0, fanout: 2, seed: 1 }),
  bad("divide-items-too-many", "POST", "/micro/divide", "items", { items: 1_000_001, fanout: 2, seed: 1 }),
  bad("divide-fanout-one", "POST", "/micro/divide", "fanout", { items: 10, fanout: 1, seed: 1 }),
  bad("divide-fanout-too-big", "POST", "/micro/divide", "fanout", { items: 10, fanout: 17, seed: 1 }),
  bad("divide-leaf-too-small", "POST", "/micro/divide", "leaf", { items: 10, fanout: 2, leaf: 15, seed: 1 }),
  bad("divide-seed-missing", "POST", "/micro/divide", "seed", { items: 10, fanout: 2 }),
  bad("divide-seed-too-big", "POST", "/micro/divide", "seed", { items: 10, fanout: 2, seed: 2 ** 31 }),
  bad("divide-items-fraction", "POST", "/micro/divide", "items", { items: 10.5, fanout: 2, seed: 1 }),
  bad("big-entities-one", "POST", "/micro/big", "entities", { entities: 1, messages: 1, seed: 1 }),
  bad("big-entities-too-many", "POST", "/micro/big", "entities", { entities: 10_001, messages: 1, seed: 1 }),
  bad("big-messages-zero", "POST", "/micro/big", "messages", { entities: 2, messages: 0, seed: 1 }),
  bad("big-messages-too-many", "POST", "/micro/big", "messages", { entities: 2, messages: 1_000_001, seed: 1 }),
  bad("big-seed-negative", "POST", "/micro/big", "seed", { entities: 2, messages: 1, seed: -1 }),
  bad("pingpong-bad-json", "POST", "/micro/pingpong", "", '{"pairs":'),
];

export function micro(): Check[] {
  const checks: Check[] = [
    {
      id: "empty",
      title: "GET /micro/empty answers 200 {handlerNs} with an integer >= 0, for the default entity and for ?key=",
      run: async (c) => {
        ok(await c.get("/micro/empty"), MicroEmptyAnswer, "GET /micro/empty");
        ok(await c.get(`/micro/empty?key=${key()}`), MicroEmptyAnswer, "GET /micro/empty?key=");
      },
    },
    {
      id: "math-pi",
      title: "GET /micro/math?n=1000000 estimates pi within 0.02 (> 10 standard deviations)",
      run: async (c) => {
        const a = ok(await c.get("/micro/math?n=1000000", SLOW), MicroMathAnswer, "GET /micro/math?n=1000000");
        expectEqual(a.n, 1_000_000, "n");
        if (Math.abs(a.pi - Math.PI) > 0.02) fail(`pi: expected within 0.02 of ${Math.PI}, got ${a.pi}`);
      },
    },
    {
      id: "math-default-n",
      title: "GET /micro/math without n uses n = 1000 and answers a pi estimate in [0, 4]",
      run: async (c) => {
        const a = ok(await c.get("/micro/math"), MicroMathAnswer, "GET /micro/math");
        expectEqual(a.n, 1000, "n (default)");
        if (Math.abs(a.pi - Math.PI) > 0.5) fail(`pi: expected within 0.5 of ${Math.PI} for n = 1000, got ${a.pi}`);
      },
    },
    {
      id: "sleep-waits",
      title: "GET /micro/sleep?ms=200 takes at least 200 ms end to end and reports handlerNs >= 199 ms (1 ms for timer granularity)",
      run: async (c) => {
        const { value: res, ms } = await timed(() => c.get("/micro/sleep?ms=200"));
        const a = ok(res, MicroSleepAnswer, "GET /micro/sleep?ms=200");
        expectEqual(a.ms, 200, "ms");
        if (ms < 199) fail(`the answer came after ${ms.toFixed(1)} ms, before the 200 ms sleep could end`);
        if (a.handlerNs < 199_000_000) fail(`handlerNs: expected >= 199000000 for a 200 ms sleep, got ${a.handlerNs}`);
      },
    },
    {
      id: "sleep-default-and-zero",
      title: "GET /micro/sleep without ms sleeps 100 ms; ms=0 answers at once",
      run: async (c) => {
        const a = ok(await c.get("/micro/sleep"), MicroSleepAnswer, "GET /micro/sleep");
        expectEqual(a.ms, 100, "ms (default)");
        if (a.handlerNs < 99_000_000) fail(`handlerNs: expected >= 99000000 for the default 100 ms sleep, got ${a.handlerNs}`);
        expectEqual(ok(await c.get("/micro/sleep?ms=0"), MicroSleepAnswer, "GET /micro/sleep?ms=0").ms, 0, "ms");
      },
    },
    {
      id: "sleep-does-not-block",
      title: "4 concurrent GET /micro/sleep?ms=1000 on the same entity finish in less than 3 s (a sleep does not block other requests)",
      run: async (c) => {
        const { value, ms } = await timed(() => Promise.all(Array.from({ length: 4 }, () => c.get("/micro/sleep?ms=1000", SLOW))));
        for (const res of value) ok(res, MicroSleepAnswer, "GET /micro/sleep?ms=1000");
        if (ms >= 3000) fail(`4 concurrent 1 s sleeps took ${Math.round(ms)} ms: they ran one after another`);
      },
    },
  ];
  for (const bytes of [1, 26, 27, 1000, 65_536, 1_048_576]) {
    checks.push({
      id: `io-${bytes}`,
      title: `POST /micro/io {key, bytes: ${bytes}} answers the sha256 of the ${bytes}-byte payload "abc...z" repeated`,
      run: async (c) => {
        const k = key();
        const a = ok(await c.post("/micro/io", { key: k, bytes }, SLOW), MicroIoAnswer, `POST /micro/io {bytes: ${bytes}}`);
        expectEqual({ key: a.key, bytes: a.bytes, sha256: a.sha256 }, { key: k, bytes, sha256: microPayloadSha256(bytes) }, "key, bytes, sha256");
      },
    });
  }
  checks.push(
    {
      id: "io-overwrite",
      title: "POST /micro/io twice under one key, 5000 then 7 bytes: the second answer hashes the 7-byte payload",
      run: async (c) => {
        const k = key();
        ok(await c.post("/micro/io", { key: k, bytes: 5000 }), MicroIoAnswer, "POST /micro/io {bytes: 5000}");
        const a = ok(await c.post("/micro/io", { key: k, bytes: 7 }), MicroIoAnswer, "POST /micro/io {bytes: 7}");
        expectEqual(a.sha256, microPayloadSha256(7), "sha256 after overwriting 5000 bytes with 7");
      },
    },
    {
      id: "pingpong-one-pair",
      title: "POST /micro/pingpong {pairs: 1, messages: 5, bytes: 0}: 5 round trips in the fixed histogram buckets",
      run: (c) => pingpong(c, 1, 5, 0),
    },
    {
      id: "pingpong-pairs",
      title: "POST /micro/pingpong {pairs: 4, messages: 10, bytes: 64}: messages = 40, histogram counts sum to 40",
      run: (c) => pingpong(c, 4, 10, 64),
    },
    {
      id: "pingpong-4k",
      title: "POST /micro/pingpong {pairs: 2, messages: 5, bytes: 4096}: messages = 10, histogram counts sum to 10",
      run: (c) => pingpong(c, 2, 5, 4096),
    },
    {
      id: "divide-below-leaf",
      title: "POST /micro/divide {items: 10, fanout: 2, seed: 1} (fewer items than the default leaf 1000): the root alone sorts, 1 entity",
      run: (c) => divide(c, { items: 10, fanout: 2, seed: 1 }),
    },
    {
      id: "divide-one-item",
      title: "POST /micro/divide {items: 1, fanout: 16, leaf: 16, seed: 0}: first = last = the one value",
      run: (c) => divide(c, { items: 1, fanout: 16, leaf: 16, seed: 0 }),
    },
    {
      id: "divide-default-leaf",
      title: "POST /micro/divide {items: 2500, fanout: 4, seed: 99}: leaf defaults to 1000, so 1 + 4 entities",
      run: (c) => divide(c, { items: 2500, fanout: 4, seed: 99 }),
    },
    {
      id: "divide-fanout-2",
      title: "POST /micro/divide {items: 5000, fanout: 2, leaf: 100, seed: 7}: first, last, checksum of the sorted input and 127 entities",
      run: (c) => divide(c, { items: 5000, fanout: 2, leaf: 100, seed: 7 }),
    },
    {
      id: "divide-fanout-16",
      title: "POST /micro/divide {items: 4000, fanout: 16, leaf: 16, seed: 2147483647}: first, last, checksum and 273 entities",
      run: (c) => divide(c, { items: 4000, fanout: 16, leaf: 16, seed: 2 ** 31 - 1 }),
    },
    { id: "big-two", title: "POST /micro/big {entities: 2, messages: 1, seed: 0}: delivered = 1", run: (c) => big(c, 2, 1, 0) },
    { id: "big-many", title: "POST /micro/big {entities: 20, messages: 500, seed: 3}: delivered = 500", run: (c) => big(c, 20, 500, 3) },
  );
  for (const b of MICRO_BAD_CASES) {
    const shown = b.body === undefined ? "" : ` ${typeof b.body === "string" ? b.body : JSON.stringify(b.body)}`;
    checks.push({
      id: `bad-${b.id}`,
      title: `${b.method} ${b.path}${shown} answers 400${b.field ? ` naming \`${b.field}\`` : ""}`,
      run: async (c) => {
        const res =
          typeof b.body === "string" ? await c.request(b.method, b.path, { body: b.body, raw: true }) : await c.request(b.method, b.path, { body: b.body });
        expectError(res, 400);
        const message = (res.json as { message: string }).message;
        if (b.field && !new RegExp(`\\b${b.field}\\b`).test(message))
          fail(`error message: expected it to name the field "${b.field}", got ${JSON.stringify(message)}`);
      },
    });
  }
  return checks;
}
