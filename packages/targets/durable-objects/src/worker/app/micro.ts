/**
 * SPEC 8 microbenchmarks on Durable Objects. Every entity is a Durable
 * Object and every message an RPC call on another object's stub
 * (`env.<NAMESPACE>.getByName(name).method(...)`), routed by workerd, never a
 * function call inside one object:
 *
 * - MicroObject (MICRO, by `key`): empty, math, sleep, io (the payload into
 *   the object's SQLite-backed storage and back).
 * - MicroDriverObject (MICRO_DRIVER, one per request): starts a messaging
 *   request and answers when all of it is done.
 * - MicroPingObject / MicroPongObject: ping-i calls pong-i `messages` times,
 *   one after another; pong answers the payload.
 * - MicroDivideObject: each entity calls `fanout` children with its parts at
 *   once and merges their sorted answers.
 * - MicroBigObject: `send` calls `receive` (a count in storage) of random
 *   other entities, one after another; `take` answers the count and clears it.
 *
 * handlerNs comes from performance.now() inside the object, the only clock
 * workerd has: 1 ms resolution (measured). On Cloudflare it would advance
 * only at I/O (a Spectre mitigation); the local workerd advances it during
 * computation too. The README says what that means for the numbers.
 */
import { DurableObject } from "cloudflare:workers";
import type { Env } from "./env.ts";

const nsSince = (startMs: number) => Math.max(0, Math.round((performance.now() - startMs) * 1e6));

/** Upper bounds of the round-trip histogram: 1, 2, 5 x 10^k ns for k = 3..9; a last bucket holds the rest. */
const BOUNDS_NS = [3, 4, 5, 6, 7, 8, 9].flatMap((k) => [1, 2, 5].map((m) => m * 10 ** k));
const bucketOf = (ns: number) => {
  const at = BOUNDS_NS.findIndex((le) => ns <= le);
  return at === -1 ? BOUNDS_NS.length : at;
};

/** The /micro/io payload: byte i is "abc...z"[i % 26]. */
function payload(bytes: number): string {
  const alphabet = "abcdefghijklmnopqrstuvwxyz";
  return alphabet.repeat(Math.floor(bytes / 26)) + alphabet.slice(0, bytes % 26);
}

async function sha256Hex(text: string): Promise<string> {
  const bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
  const digest = await crypto.subtle.digest("SHA-256", bytes);
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** A small seeded generator (mulberry32) for Big's random receivers. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Merges sorted arrays (the fan-in of divide). */
function merge(parts: number[][]): number[] {
  const out = new Array<number>(parts.reduce((n, p) => n + p.length, 0));
  const at = new Array<number>(parts.length).fill(0);
  for (let o = 0; o < out.length; o++) {
    let best = -1;
    for (let j = 0; j < parts.length; j++) {
      if (at[j]! < parts[j]!.length && (best === -1 || parts[j]![at[j]!]! < parts[best]![at[best]!]!)) best = j;
    }
    out[o] = parts[best]![at[best]!++]!;
  }
  return out;
}

export class MicroObject extends DurableObject<Env> {
  empty(): { handlerNs: number } {
    const start = performance.now();
    return { handlerNs: nsSince(start) };
  }

  math(n: number): { n: number; pi: number; handlerNs: number } {
    const start = performance.now();
    let inside = 0;
    for (let i = 0; i < n; i++) {
      const x = Math.random();
      const y = Math.random();
      if (x * x + y * y <= 1) inside++;
    }
    return { n, pi: (4 * inside) / n, handlerNs: nsSince(start) };
  }

  /** A timer: the object's input gate stays open, so other calls run meanwhile. */
  async sleep(ms: number): Promise<{ ms: number; handlerNs: number }> {
    const start = performance.now();
    await new Promise((resolve) => setTimeout(resolve, ms));
    return { ms, handlerNs: nsSince(start) };
  }

  /** Writes the payload into the object's storage, reads it back and hashes what it read. */
  async io(bytes: number): Promise<{ bytes: number; sha256: string; handlerNs: number }> {
    const start = performance.now();
    this.ctx.storage.kv.put("payload", payload(bytes));
    const stored = this.ctx.storage.kv.get<string>("payload") ?? "";
    const sha256 = await sha256Hex(stored);
    return { bytes: stored.length, sha256, handlerNs: nsSince(start) };
  }
}

export class MicroPongObject extends DurableObject<Env> {
  pong(body: string): string {
    return body;
  }
}

export class MicroPingObject extends DurableObject<Env> {
  /** Round trips to the pong, one after another; answers the round-trip counts per histogram bucket. */
  async run(pong: string, messages: number, bytes: number): Promise<number[]> {
    const counts = new Array<number>(BOUNDS_NS.length + 1).fill(0);
    const stub = this.env.MICRO_PONG.getByName(pong);
    const body = "x".repeat(bytes);
    for (let m = 0; m < messages; m++) {
      const sent = performance.now();
      const reply = await stub.pong(body);
      if (reply.length !== bytes) throw new Error(`${pong} answered ${reply.length} bytes, not ${bytes}`);
      counts[bucketOf(nsSince(sent))]!++;
    }
    return counts;
  }
}

export class MicroDivideObject extends DurableObject<Env> {
  /** Sorts its slice, or splits it among `fanout` new children and merges their answers. */
  async sort(name: string, slice: number[], fanout: number, leaf: number): Promise<{ sorted: number[]; entities: number }> {
    if (slice.length <= leaf) return { sorted: slice.sort((a, b) => a - b), entities: 1 };
    const answers = await Promise.all(
      Array.from({ length: fanout }, (_, j) =>
        this.env.MICRO_DIVIDE.getByName(`${name}.${j}`).sort(
          `${name}.${j}`,
          slice.slice(Math.floor((j * slice.length) / fanout), Math.floor(((j + 1) * slice.length) / fanout)),
          fanout,
          leaf,
        ),
      ),
    );
    return { sorted: merge(answers.map((a) => a.sorted)), entities: 1 + answers.reduce((n, a) => n + a.entities, 0) };
  }
}

export class MicroBigObject extends DurableObject<Env> {
  /** Sends `share` messages to random other entities, one after another; its own receive runs meanwhile. */
  async send(run: string, index: number, entities: number, share: number, seed: number): Promise<void> {
    const next = random(seed * 31 + index);
    for (let m = 0; m < share; m++) {
      const to = (index + 1 + Math.floor(next() * (entities - 1))) % entities;
      await this.env.MICRO_BIG.getByName(`${run}:big-${to}`).receive();
    }
  }

  receive(): void {
    this.ctx.storage.kv.put("received", (this.ctx.storage.kv.get<number>("received") ?? 0) + 1);
  }

  /** The count, once the run is over; the storage is cleared so finished runs leave nothing behind. */
  async take(): Promise<number> {
    const received = this.ctx.storage.kv.get<number>("received") ?? 0;
    await this.ctx.storage.deleteAll();
    return received;
  }
}

export class MicroDriverObject extends DurableObject<Env> {
  async pingpong(run: string, pairs: number, messages: number, bytes: number) {
    const start = performance.now();
    const counts = await Promise.all(
      Array.from({ length: pairs }, (_, i) => this.env.MICRO_PING.getByName(`${run}:ping-${i}`).run(`${run}:pong-${i}`, messages, bytes)),
    );
    const totalNs = nsSince(start);
    const histogram = [...BOUNDS_NS, null].map((le, b) => [le, counts.reduce((s, c) => s + c[b]!, 0)]);
    return { pairs, messages: pairs * messages, bytes, totalNs, histogram, handlerNs: nsSince(start) };
  }

  async divide(run: string, items: number, fanout: number, leaf: number, seed: number) {
    const start = performance.now();
    const input = new Array<number>(items);
    let x = BigInt(seed);
    for (let k = 0; k < items; k++) {
      x = (1103515245n * x + 12345n) % 2147483648n;
      input[k] = Number(x % 1_000_000n);
    }
    const first = performance.now();
    const { sorted, entities } = await this.env.MICRO_DIVIDE.getByName(`${run}:root`).sort(`${run}:root`, input, fanout, leaf);
    const totalNs = nsSince(first);
    let checksum = 0n;
    for (let i = 0; i < sorted.length; i++) checksum = (checksum + BigInt(sorted[i]!) * BigInt(i + 1)) % 2147483647n;
    return { items, first: sorted[0]!, last: sorted.at(-1)!, checksum: Number(checksum), entities, totalNs, handlerNs: nsSince(start) };
  }

  async big(run: string, entities: number, messages: number, seed: number) {
    const start = performance.now();
    const stub = (index: number) => this.env.MICRO_BIG.getByName(`${run}:big-${index}`);
    await Promise.all(
      Array.from({ length: entities }, (_, index) =>
        stub(index).send(run, index, entities, Math.floor(messages / entities) + (index < messages % entities ? 1 : 0), seed),
      ),
    );
    const totalNs = nsSince(start);
    const counts = await Promise.all(Array.from({ length: entities }, (_, index) => stub(index).take()));
    return { entities, messages, delivered: counts.reduce((s, n) => s + n, 0), totalNs, handlerNs: nsSince(start) };
  }
}
