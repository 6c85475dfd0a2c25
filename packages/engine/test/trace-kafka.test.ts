/**
 * Shipper and collector against a real Kafka broker and a real log file that
 * is appended to while the shipper tails it.
 */
import { randomUUID } from "node:crypto";
import { appendFileSync, mkdtempSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Span } from "@sfbench/core";
import { kafkaBrokers, up } from "@sfbench/services";
import { collectSpans } from "../src/trace/collector.ts";
import { createSpanTopic, deleteSpanTopic, kafkaClient, spanTopic, topicEnd, withAdmin } from "../src/trace/kafka.ts";
import { LogTail, logOffset } from "../src/trace/log-tail.ts";
import { TraceSession } from "../src/trace/session.ts";
import { SpanShipper } from "../src/trace/shipper.ts";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
let n = 0;
function span(op: string): Span {
  n++;
  const start = 1_700_000_000_000_000 + n * 1000;
  return {
    sfbench: "span",
    traceId: n.toString(16).padStart(32, "0"),
    spanId: n.toString(16).padStart(16, "0"),
    parentId: null,
    kind: "function",
    entity: "product",
    op,
    key: `p-${n}-é`,
    start,
    end: start + 250,
  };
}
const line = (s: Span) => JSON.stringify(s) + "\n";

describe("LogTail", () => {
  it("returns complete lines only, across reads that cut a line and a multi-byte character", () => {
    const file = join(mkdtempSync(join(tmpdir(), "sfbench-tail-")), "target.log");
    expect(logOffset(file)).toBe(0);
    const tail = new LogTail(file, 0);
    expect(tail.read()).toEqual([]); // not written yet
    writeFileSync(file, "one\r\ntw");
    expect(tail.read()).toEqual(["one"]);
    appendFileSync(file, Buffer.from("o é\nthr", "utf8").subarray(0, 4)); // "o " and the first byte of é
    expect(tail.read()).toEqual([]);
    appendFileSync(file, Buffer.from("o é\nthr", "utf8").subarray(4));
    expect(tail.read()).toEqual(["two é"]);
    expect(tail.rest()).toBe("thr");
    expect(tail.offset).toBe(logOffset(file));
    tail.close();
  });
});

describe("kafkajs's idle timer loop (kafkajs#1556)", () => {
  it("is fixed once a client exists: an idle request queue schedules nothing, a waiting request a check", () => {
    kafkaClient(["127.0.0.1:1"]);
    const RequestQueue = createRequire(import.meta.url)("kafkajs/src/network/requestQueue/index.js") as {
      prototype: { scheduleCheckPendingRequests(this: object): void };
    };
    const idle = { pending: [], throttledUntil: -1, throttleCheckTimeoutId: null as NodeJS.Timeout | null, checkPendingRequests: () => {} };
    RequestQueue.prototype.scheduleCheckPendingRequests.call(idle);
    expect(idle.throttleCheckTimeoutId).toBeNull();
    const waiting = { ...idle, pending: [{}] };
    RequestQueue.prototype.scheduleCheckPendingRequests.call(waiting);
    expect(waiting.throttleCheckTimeoutId).not.toBeNull();
    clearTimeout(waiting.throttleCheckTimeoutId!);
  });
});

describe("shipper and collector on a real Kafka topic", () => {
  let brokers: string[];
  const topics: string[] = [];

  beforeAll(async () => {
    await up(["kafka"]);
    brokers = kafkaBrokers();
  });
  afterAll(async () => {
    for (const t of topics) await deleteSpanTopic(brokers, t).catch(() => undefined);
  });

  it("ships the span lines appended after the offset, in order, and ignores every other line", async () => {
    const file = join(mkdtempSync(join(tmpdir(), "sfbench-spans-")), "target.log");
    const before = span("before");
    writeFileSync(file, `server listening\n${line(before)}`);
    const topic = spanTopic(randomUUID());
    topics.push(topic);
    await createSpanTopic(brokers, topic);
    await createSpanTopic(brokers, topic); // exists: fine

    const shipper = await SpanShipper.start({ brokers, topic, file, offset: logOffset(file), pollMs: 50 });
    const expected: Span[] = [];
    const ignored = [
      '{"level":30,"time":1700000000000,"msg":"request completed"}',
      "plain text from the target",
      '{"sfbench":"span","traceId":"not-hex"}',
      '{"sfbench":"span", broken json',
      "",
    ];
    for (let round = 0; round < 5; round++) {
      const spans = Array.from({ length: 40 }, () => span(`round-${round}`));
      expected.push(...spans);
      // a span line split across two writes, a non-span line between spans
      const text = spans.map(line).join("") + `${ignored[round]}\n`;
      const cut = text.indexOf("\n", 100) + 20;
      appendFileSync(file, text.slice(0, cut));
      await sleep(80);
      appendFileSync(file, text.slice(cut));
      await sleep(80);
    }
    const last = span("last, without a newline");
    expected.push(last);
    appendFileSync(file, JSON.stringify(last));

    const stats = await shipper.stop(100);
    expect(stats).toMatchObject({ lines: expected.length + ignored.length, spans: expected.length, ignored: ignored.length, offset: logOffset(file) });
    // one message per trace and poll: every span here has its own trace
    expect(stats.messages).toBe(expected.length);

    const to = await topicEnd(brokers, topic);
    expect(to).toBe(expected.length);
    const got = await collectSpans({ brokers, topic, to });
    expect(got.messages).toBe(expected.length);
    expect(got.invalid).toBe(0);
    expect(got.spans).toEqual(expected);
    expect(got.spans.map((s) => s.traceId)).not.toContain(before.traceId);

    // a filter keeps what it accepts; the collector leaves no consumer group behind
    const kept = await collectSpans({ brokers, topic, to, keep: (s) => s.op === "round-3" });
    expect(kept.spans).toEqual(expected.filter((s) => s.op === "round-3"));
    const groups = await withAdmin(brokers, (admin) => admin.listGroups());
    expect(groups.groups.filter((g) => g.groupId.startsWith("sfbench-collector-"))).toEqual([]);
  });

  it("the spans of one trace that arrive in one poll travel as one message, keyed by the trace id", async () => {
    const file = join(mkdtempSync(join(tmpdir(), "sfbench-spans-")), "target.log");
    writeFileSync(file, "");
    const topic = spanTopic(randomUUID());
    topics.push(topic);
    await createSpanTopic(brokers, topic);
    const shipper = await SpanShipper.start({ brokers, topic, file, offset: 0, pollMs: 10_000 });
    const traces = [0, 1, 2].map(() => Array.from({ length: 4 }, () => span("grouped")));
    const a = traces[0]![0]!.traceId;
    for (const t of traces) for (const s of t) s.traceId = t[0]!.traceId;
    // interleaved, as concurrent requests write them
    const lines = [0, 1, 2, 3].flatMap((i) => traces.map((t) => t[i]!));
    appendFileSync(file, lines.map(line).join(""));
    const stats = await shipper.stop(0);
    expect(stats).toMatchObject({ spans: 12, messages: 3 });
    expect(await topicEnd(brokers, topic)).toBe(3);

    const groupId = `sfbench-test-${randomUUID()}`;
    const consumer = kafkaClient(brokers).consumer({ groupId, maxWaitTimeInMs: 100 });
    await consumer.connect();
    await consumer.subscribe({ topic, fromBeginning: true });
    const messages: Array<{ key: string; lines: number }> = [];
    await consumer.run({
      eachMessage: async ({ message }) => void messages.push({ key: message.key!.toString(), lines: message.value!.toString().split("\n").length }),
    });
    await expect.poll(() => messages.length, { timeout: 20_000 }).toBe(3);
    await consumer.disconnect();
    await withAdmin(brokers, (admin) => admin.deleteGroups([groupId]));
    expect(messages[0]).toEqual({ key: a, lines: 4 });
    expect(messages.map((m) => m.key)).toEqual(traces.map((t) => t[0]!.traceId));

    const got = await collectSpans({ brokers, topic, to: 3 });
    expect(got.spans).toEqual(traces.flat());
  });

  it("a session's windows, shipped after the phase or live, read back only their own spans; close deletes the topic", async () => {
    const file = join(mkdtempSync(join(tmpdir(), "sfbench-spans-")), "target.log");
    writeFileSync(file, "");
    const session = await TraceSession.open(randomUUID(), { logFile: file, brokers });
    topics.push(session.topic);
    expect(session.topic).toMatch(/^sfbench\.spans\.[0-9a-f-]{36}$/);

    // the default window ships after the phase: nothing reaches Kafka while it is open
    const first = await session.window();
    const a = Array.from({ length: 25 }, () => span("first"));
    appendFileSync(file, a.map(line).join(""));
    await sleep(400);
    expect(await topicEnd(brokers, session.topic)).toBe(0);
    expect((await first.finish()).spans).toEqual(a);

    appendFileSync(file, line(span("between windows: not shipped")));
    // a live window ships while it is open
    const second = await session.window({ live: true });
    expect(second.from).toBe(25);
    const b = Array.from({ length: 10 }, () => span("second"));
    await sleep(250);
    appendFileSync(file, b.map(line).join(""));
    await expect.poll(() => topicEnd(brokers, session.topic), { timeout: 20_000, interval: 100 }).toBeGreaterThan(25); // a loaded machine may take a while
    const result = await second.finish();
    expect(result.spans).toEqual(b);
    expect(result.shipped.spans).toBe(10);

    await session.close();
    // deletion reaches the broker's metadata shortly after the controller accepted it
    await expect.poll(() => withAdmin(brokers, (admin) => admin.listTopics()), { timeout: 10_000, interval: 200 }).not.toContain(session.topic);
  });
});
