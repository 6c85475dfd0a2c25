/**
 * SPEC 8 microbenchmarks on Restate. Every entity is a Virtual Object and
 * every message an invocation routed by the Restate server (journaled,
 * exactly once), never a function call inside this process:
 *
 * - `Micro/<key>`: empty, math and sleep (shared handlers, so a sleeping
 *   invocation does not block others on the same key; sleep is a durable
 *   Restate timer), ioWrite (exclusive: the payload into the object's state)
 *   and ioRead (shared: the state back from the server, hashed).
 * - `MicroPing/<run>:ping-i` calls `MicroPong/<run>:pong-i` `messages` times,
 *   one after another; pong answers the payload.
 * - `MicroDivide/<run>:root...`: each entity calls `fanout` children with
 *   its parts concurrently and merges their sorted answers.
 * - `MicroBig/<run>:big-j`: `send` (shared) calls `receive` (exclusive: a
 *   count in state) of random other entities, one after another; `take`
 *   answers the count and clears the state.
 * - `MicroDriver` (a stateless service) starts a messaging request and
 *   answers when all of it is done.
 *
 * handlerNs is measured in the handler with process.hrtime.bigint(). A
 * handler that Restate replays (after a failure or a suspension, none of
 * which happens in a healthy run of at most 10 s sleeps) measures its replay.
 */
import { createHash } from "node:crypto";
import * as restate from "@restatedev/restate-sdk";
import { RestatePromise, serde, type Context, type ObjectContext, type ObjectSharedContext } from "@restatedev/restate-sdk";

const now = () => process.hrtime.bigint();
const since = (start: bigint) => Number(now() - start);

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

/** A small seeded generator (mulberry32): deterministic, so a replayed sender picks the same receivers. */
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

/** A call to another object's handler, routed by the Restate server. */
function call<I, O>(ctx: Context | ObjectSharedContext, service: string, key: string, method: string, parameter: I): RestatePromise<O> {
  return ctx.genericCall<I, O>({ service, key, method, parameter, inputSerde: serde.json, outputSerde: serde.json });
}

const IO_STATE = "payload";

export const micro = restate.object({
  name: "Micro",
  handlers: {
    empty: restate.handlers.object.shared(async (): Promise<{ handlerNs: number }> => {
      const start = now();
      return { handlerNs: since(start) };
    }),

    math: restate.handlers.object.shared(async (_ctx: ObjectSharedContext, n: number): Promise<{ n: number; pi: number; handlerNs: number }> => {
      const start = now();
      let inside = 0;
      for (let i = 0; i < n; i++) {
        const x = Math.random();
        const y = Math.random();
        if (x * x + y * y <= 1) inside++;
      }
      return { n, pi: (4 * inside) / n, handlerNs: since(start) };
    }),

    sleep: restate.handlers.object.shared(async (ctx: ObjectSharedContext, ms: number): Promise<{ ms: number; handlerNs: number }> => {
      const start = now();
      await ctx.sleep(ms);
      return { ms, handlerNs: since(start) };
    }),

    ioWrite: async (ctx: ObjectContext, bytes: number): Promise<{ handlerNs: number }> => {
      const start = now();
      ctx.set<string>(IO_STATE, payload(bytes));
      return { handlerNs: since(start) };
    },

    ioRead: restate.handlers.object.shared(async (ctx: ObjectSharedContext): Promise<{ bytes: number; sha256: string; handlerNs: number }> => {
      const start = now();
      const stored = (await ctx.get<string>(IO_STATE)) ?? "";
      const sha256 = createHash("sha256").update(stored, "latin1").digest("hex");
      return { bytes: stored.length, sha256, handlerNs: since(start) };
    }),
  },
});

interface PingRequest {
  pong: string;
  messages: number;
  bytes: number;
}

export const microPing = restate.object({
  name: "MicroPing",
  handlers: {
    /** Round trips to the pong, one after another; answers the round-trip counts per histogram bucket. */
    run: async (ctx: ObjectContext, { pong, messages, bytes }: PingRequest): Promise<number[]> => {
      const counts = new Array<number>(BOUNDS_NS.length + 1).fill(0);
      const body = "x".repeat(bytes);
      for (let m = 0; m < messages; m++) {
        const sent = now();
        const reply = await call<string, string>(ctx, "MicroPong", pong, "pong", body);
        if (reply.length !== bytes) throw new restate.TerminalError(`${pong} answered ${reply.length} bytes, not ${bytes}`);
        counts[bucketOf(since(sent))]!++;
      }
      return counts;
    },
  },
});

export const microPong = restate.object({
  name: "MicroPong",
  handlers: {
    pong: async (_ctx: ObjectContext, body: string): Promise<string> => body,
  },
});

interface DivideRequest {
  slice: number[];
  fanout: number;
  leaf: number;
}

export const microDivide = restate.object({
  name: "MicroDivide",
  handlers: {
    /** Sorts its slice, or splits it among `fanout` new children and merges their answers. */
    sort: async (ctx: ObjectContext, { slice, fanout, leaf }: DivideRequest): Promise<{ sorted: number[]; entities: number }> => {
      if (slice.length <= leaf) return { sorted: slice.sort((a, b) => a - b), entities: 1 };
      const answers = await RestatePromise.all(
        Array.from({ length: fanout }, (_, j) =>
          call<DivideRequest, { sorted: number[]; entities: number }>(ctx, "MicroDivide", `${ctx.key}.${j}`, "sort", {
            slice: slice.slice(Math.floor((j * slice.length) / fanout), Math.floor(((j + 1) * slice.length) / fanout)),
            fanout,
            leaf,
          }),
        ),
      );
      return { sorted: merge(answers.map((a) => a.sorted)), entities: 1 + answers.reduce((n, a) => n + a.entities, 0) };
    },
  },
});

interface BigSend {
  run: string;
  index: number;
  entities: number;
  share: number;
  seed: number;
}

export const microBig = restate.object({
  name: "MicroBig",
  handlers: {
    /** Shared, so that this entity's `receive` runs while it sends (two senders never wait on each other). */
    send: restate.handlers.object.shared(async (ctx: ObjectSharedContext, { run, index, entities, share, seed }: BigSend): Promise<void> => {
      const next = random(seed * 31 + index);
      for (let m = 0; m < share; m++) {
        const to = (index + 1 + Math.floor(next() * (entities - 1))) % entities;
        await call<null, null>(ctx, "MicroBig", `${run}:big-${to}`, "receive", null);
      }
    }),
    receive: async (ctx: ObjectContext): Promise<null> => {
      ctx.set<number>("received", ((await ctx.get<number>("received")) ?? 0) + 1);
      return null;
    },
    /** The count, once the run is over; the state is cleared so finished runs leave nothing behind. */
    take: async (ctx: ObjectContext): Promise<number> => {
      const received = (await ctx.get<number>("received")) ?? 0;
      ctx.clearAll();
      return received;
    },
  },
});

export interface PingPongRequest {
  pairs: number;
  messages: number;
  bytes: number;
}
export interface DivideStart {
  items: number;
  fanout: number;
  leaf: number;
  seed: number;
}
export interface BigStart {
  entities: number;
  messages: number;
  seed: number;
}

export const microDriver = restate.service({
  name: "MicroDriver",
  handlers: {
    pingpong: async (ctx: Context, { pairs, messages, bytes }: PingPongRequest) => {
      const start = now();
      const run = ctx.rand.uuidv4();
      const first = now();
      const counts = await RestatePromise.all(
        Array.from({ length: pairs }, (_, i) =>
          call<PingRequest, number[]>(ctx, "MicroPing", `${run}:ping-${i}`, "run", { pong: `${run}:pong-${i}`, messages, bytes }),
        ),
      );
      const totalNs = since(first);
      const histogram = [...BOUNDS_NS, null].map((le, b) => [le, counts.reduce((s, c) => s + c[b]!, 0)]);
      return { pairs, messages: pairs * messages, bytes, totalNs, histogram, handlerNs: since(start) };
    },

    divide: async (ctx: Context, { items, fanout, leaf, seed }: DivideStart) => {
      const start = now();
      const input = new Array<number>(items);
      let x = BigInt(seed);
      for (let k = 0; k < items; k++) {
        x = (1103515245n * x + 12345n) % 2147483648n;
        input[k] = Number(x % 1_000_000n);
      }
      const first = now();
      const { sorted, entities } = await call<DivideRequest, { sorted: number[]; entities: number }>(ctx, "MicroDivide", `${ctx.rand.uuidv4()}:root`, "sort", {
        slice: input,
        fanout,
        leaf,
      });
      const totalNs = since(first);
      let checksum = 0n;
      for (let i = 0; i < sorted.length; i++) checksum = (checksum + BigInt(sorted[i]!) * BigInt(i + 1)) % 2147483647n;
      return { items, first: sorted[0]!, last: sorted.at(-1)!, checksum: Number(checksum), entities, totalNs, handlerNs: since(start) };
    },

    big: async (ctx: Context, { entities, messages, seed }: BigStart) => {
      const start = now();
      const run = ctx.rand.uuidv4();
      const first = now();
      await RestatePromise.all(
        Array.from({ length: entities }, (_, index) =>
          call<BigSend, null>(ctx, "MicroBig", `${run}:big-${index}`, "send", {
            run,
            index,
            entities,
            share: Math.floor(messages / entities) + (index < messages % entities ? 1 : 0),
            seed,
          }),
        ),
      );
      const totalNs = since(first);
      const counts = await RestatePromise.all(
        Array.from({ length: entities }, (_, index) => call<null, number>(ctx, "MicroBig", `${run}:big-${index}`, "take", null)),
      );
      return { entities, messages, delivered: counts.reduce((s, n) => s + n, 0), totalNs, handlerNs: since(start) };
    },
  },
});

export const microObjects = [micro, microPing, microPong, microDivide, microBig, microDriver] as const;
