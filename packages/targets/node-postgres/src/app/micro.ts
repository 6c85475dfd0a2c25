/**
 * SPEC 8 microbenchmarks on the baseline. There is no entity runtime here:
 * an entity is a row of micro_entities, and a message to it is one round trip
 * through PostgreSQL. Ping-pong and Big call micro_deliver() (schema.sql),
 * which counts the message in the receiver's row and answers with the payload.
 * Divide sends each part by writing it into the child's row; the child (a
 * function invocation given only its row's id) reads its slice from there and
 * writes its sorted answer back, which the parent reads. handlerNs is the
 * time spent in these functions (process.hrtime.bigint), not in Fastify.
 */
import { createHash, randomUUID } from "node:crypto";
import type { Db } from "./db.ts";

const now = () => process.hrtime.bigint();
const since = (start: bigint) => Number(now() - start);

/** Upper bounds of the round-trip histogram: 1, 2, 5 x 10^k ns for k = 3..9; a last bucket holds the rest. */
const BOUNDS_NS = [3, 4, 5, 6, 7, 8, 9].flatMap((k) => [1, 2, 5].map((m) => m * 10 ** k));

function histogram(): { add(ns: number): void; buckets(): Array<[number | null, number]> } {
  const counts = new Array<number>(BOUNDS_NS.length + 1).fill(0);
  return {
    add(ns) {
      const at = BOUNDS_NS.findIndex((le) => ns <= le);
      counts[at === -1 ? BOUNDS_NS.length : at]!++;
    },
    buckets: () => [...BOUNDS_NS.map((le, i): [number, number] => [le, counts[i]!]), [null, counts[BOUNDS_NS.length]!]],
  };
}

/** The /micro/io payload: byte i is "abc...z"[i % 26]. */
function payload(bytes: number): Buffer {
  const out = Buffer.allocUnsafe(bytes);
  for (let i = 0; i < bytes; i++) out[i] = 97 + (i % 26);
  return out;
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

export interface PingPongInput {
  pairs: number;
  messages: number;
  bytes: number;
}
export interface DivideInput {
  items: number;
  fanout: number;
  leaf: number;
  seed: number;
}
export interface BigInput {
  entities: number;
  messages: number;
  seed: number;
}

export interface Micro {
  empty(key: string): Promise<{ handlerNs: number }>;
  math(key: string, n: number): Promise<{ n: number; pi: number; handlerNs: number }>;
  sleep(key: string, ms: number): Promise<{ ms: number; handlerNs: number }>;
  io(key: string, bytes: number): Promise<{ key: string; bytes: number; sha256: string; handlerNs: number }>;
  pingpong(input: PingPongInput): Promise<PingPongInput & { totalNs: number; histogram: Array<[number | null, number]>; handlerNs: number }>;
  divide(input: DivideInput): Promise<{ items: number; first: number; last: number; checksum: number; entities: number; totalNs: number; handlerNs: number }>;
  big(input: BigInput): Promise<{ entities: number; messages: number; delivered: number; totalNs: number; handlerNs: number }>;
}

export function createMicro(db: Db): Micro {
  /** Removes a request's entity rows once it has its answer. */
  const forget = (run: string) => db.query("DELETE FROM micro_entities WHERE run = $1", [run]);

  return {
    // The key names the entity; empty, math and sleep touch no state, so nothing reads it.
    async empty() {
      const start = now();
      return { handlerNs: since(start) };
    },

    async math(_key, n) {
      const start = now();
      let inside = 0;
      for (let i = 0; i < n; i++) {
        const x = Math.random();
        const y = Math.random();
        if (x * x + y * y <= 1) inside++;
      }
      return { n, pi: (4 * inside) / n, handlerNs: since(start) };
    },

    async sleep(_key, ms) {
      const start = now();
      // A timer is due against the event loop's cached clock, so it can fire up to a
      // millisecond before ms have passed on the handler's own clock: wait out the rest.
      for (let left = ms; left > 0; left = ms - since(start) / 1e6) {
        await new Promise((resolve) => setTimeout(resolve, Math.ceil(left)));
      }
      return { ms, handlerNs: since(start) };
    },

    async io(key, bytes) {
      const start = now();
      await db.query("INSERT INTO micro_io (key, payload) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET payload = excluded.payload", [key, payload(bytes)]);
      const { rows } = await db.query<{ payload: Buffer }>("SELECT payload FROM micro_io WHERE key = $1", [key]);
      const sha256 = createHash("sha256").update(rows[0]!.payload).digest("hex");
      return { key, bytes, sha256, handlerNs: since(start) };
    },

    async pingpong({ pairs, messages, bytes }) {
      const start = now();
      const run = randomUUID();
      const body = payload(bytes);
      const rtt = histogram();
      const first = now();
      try {
        await Promise.all(
          Array.from({ length: pairs }, async (_, i) => {
            for (let m = 0; m < messages; m++) {
              const sent = now();
              const { rows } = await db.query<{ reply: Buffer }>("SELECT micro_deliver($1, $2, $3) AS reply", [run, `pong-${i}`, body]);
              if (rows[0]!.reply.length !== bytes) throw new Error(`pong-${i} answered ${rows[0]!.reply.length} bytes, not ${bytes}`);
              rtt.add(since(sent));
            }
          }),
        );
        const totalNs = since(first);
        return { pairs, messages: pairs * messages, bytes, totalNs, histogram: rtt.buckets(), handlerNs: since(start) };
      } finally {
        await forget(run);
      }
    },

    async divide({ items, fanout, leaf, seed }) {
      const start = now();
      const run = randomUUID();
      try {
        const input = new Array<number>(items);
        let x = BigInt(seed);
        for (let k = 0; k < items; k++) {
          x = (1103515245n * x + 12345n) % 2147483648n;
          input[k] = Number(x % 1_000_000n);
        }
        const first = now();
        /** Sends a slice to entity `id`: its row, created with the slice. */
        const send = (id: string, slice: number[]) => db.query("INSERT INTO micro_entities (run, id, slice) VALUES ($1, $2, $3)", [run, id, slice]);
        /** Entity `id`: reads its slice, sorts it or divides it among children, writes its sorted answer. */
        const entity = async (id: string): Promise<void> => {
          const { rows } = await db.query<{ slice: number[] }>("SELECT slice FROM micro_entities WHERE run = $1 AND id = $2", [run, id]);
          const slice = rows[0]!.slice;
          let sorted: number[];
          if (slice.length <= leaf) sorted = slice.sort((a, b) => a - b);
          else {
            const children = Array.from({ length: fanout }, (_, j) => `${id}.${j}`);
            const answers = await Promise.all(
              children.map(async (child, j) => {
                await send(child, slice.slice(Math.floor((j * slice.length) / fanout), Math.floor(((j + 1) * slice.length) / fanout)));
                await entity(child);
                const answer = await db.query<{ slice: number[] }>("SELECT slice FROM micro_entities WHERE run = $1 AND id = $2", [run, child]);
                return answer.rows[0]!.slice;
              }),
            );
            sorted = merge(answers);
          }
          await db.query("UPDATE micro_entities SET slice = $3 WHERE run = $1 AND id = $2", [run, id, sorted]);
        };
        await send("root", input);
        await entity("root");
        const { rows } = await db.query<{ slice: number[]; entities: number }>(
          "SELECT (SELECT slice FROM micro_entities WHERE run = $1 AND id = 'root') AS slice, (SELECT count(*) FROM micro_entities WHERE run = $1)::int AS entities",
          [run],
        );
        const totalNs = since(first);
        const sorted = rows[0]!.slice;
        let checksum = 0n;
        for (let i = 0; i < sorted.length; i++) checksum = (checksum + BigInt(sorted[i]!) * BigInt(i + 1)) % 2147483647n;
        return { items, first: sorted[0]!, last: sorted.at(-1)!, checksum: Number(checksum), entities: rows[0]!.entities, totalNs, handlerNs: since(start) };
      } finally {
        await forget(run);
      }
    },

    async big({ entities, messages, seed }) {
      const start = now();
      const run = randomUUID();
      const empty = Buffer.alloc(0);
      const first = now();
      try {
        await Promise.all(
          Array.from({ length: entities }, async (_, sender) => {
            const share = Math.floor(messages / entities) + (sender < messages % entities ? 1 : 0);
            const next = random(seed * 31 + sender);
            for (let m = 0; m < share; m++) {
              const offset = 1 + Math.floor(next() * (entities - 1));
              await db.query("SELECT micro_deliver($1, $2, $3)", [run, `big-${(sender + offset) % entities}`, empty]);
            }
          }),
        );
        const { rows } = await db.query<{ delivered: number }>("SELECT coalesce(sum(received), 0)::bigint AS delivered FROM micro_entities WHERE run = $1", [
          run,
        ]);
        return { entities, messages, delivered: rows[0]!.delivered, totalNs: since(first), handlerNs: since(start) };
      } finally {
        await forget(run);
      }
    },
  };
}
