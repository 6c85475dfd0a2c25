/**
 * SPEC 8 (microbenchmarks), the pure part: input limits, answer shapes and
 * the values a client can compute on its own (the io payload's hash, the
 * divide-and-conquer result, the ping-pong histogram's buckets). The `micro`
 * conformance suite checks targets with these; the workloads reuse them to
 * check every answer they measure.
 */
import { createHash } from "node:crypto";
import { z } from "zod";

/** Inclusive limits of every input of SPEC 8. */
export const MICRO_LIMITS = {
  math: { n: { min: 1, max: 10_000_000, default: 1000 } },
  sleep: { ms: { min: 0, max: 10_000, default: 100 } },
  io: { bytes: { min: 1, max: 1_048_576 } },
  pingpong: { pairs: { min: 1, max: 64 }, messages: { min: 1, max: 100_000 }, bytes: { min: 0, max: 65_536 } },
  divide: {
    items: { min: 1, max: 1_000_000 },
    fanout: { min: 2, max: 16 },
    leaf: { min: 16, max: 100_000, default: 1000 },
    seed: { min: 0, max: 2 ** 31 - 1 },
  },
  big: { entities: { min: 2, max: 10_000 }, messages: { min: 1, max: 1_000_000 }, seed: { min: 0, max: 2 ** 31 - 1 } },
} as const;

/** The entity `?key=` names when it is left out. */
export const MICRO_DEFAULT_KEY = "micro";

const Ns = z.number().int().min(0);

export const MicroEmptyAnswer = z.object({ handlerNs: Ns });
export const MicroMathAnswer = z.object({ n: z.number().int(), pi: z.number().min(0).max(4), handlerNs: Ns });
export const MicroSleepAnswer = z.object({ ms: z.number().int(), handlerNs: Ns });
export const MicroIoAnswer = z.object({ key: z.string(), bytes: z.number().int(), sha256: z.string().regex(/^[0-9a-f]{64}$/), handlerNs: Ns });
export const HistogramBucket = z.tuple([z.number().int().positive().nullable(), z.number().int().min(0)]);
export const MicroPingPongAnswer = z.object({
  pairs: z.number().int(),
  messages: z.number().int(),
  bytes: z.number().int(),
  totalNs: Ns,
  histogram: z.array(HistogramBucket),
  handlerNs: Ns,
});
export const MicroDivideAnswer = z.object({
  items: z.number().int(),
  first: z.number().int(),
  last: z.number().int(),
  checksum: z.number().int(),
  entities: z.number().int().min(1),
  totalNs: Ns,
  handlerNs: Ns,
});
export const MicroBigAnswer = z.object({ entities: z.number().int(), messages: z.number().int(), delivered: z.number().int(), totalNs: Ns, handlerNs: Ns });

export type MicroPingPongAnswer = z.infer<typeof MicroPingPongAnswer>;
export type MicroDivideAnswer = z.infer<typeof MicroDivideAnswer>;

// ---- /micro/io ----------------------------------------------------------

const ALPHABET = "abcdefghijklmnopqrstuvwxyz";

/** The io payload of `bytes` bytes: byte i is "abc...z"[i % 26]. */
export function microPayload(bytes: number): string {
  const whole = ALPHABET.repeat(Math.floor(bytes / 26));
  return whole + ALPHABET.slice(0, bytes % 26);
}

/** sha256 (lowercase hex) of the io payload of `bytes` bytes: what /micro/io must answer. */
export function microPayloadSha256(bytes: number): string {
  return createHash("sha256").update(microPayload(bytes), "latin1").digest("hex");
}

// ---- /micro/divide --------------------------------------------------------

const MOD31 = 2 ** 31;
const CHECKSUM_MOD = 2n ** 31n - 1n;

/** The divide input: x0 = seed, x(k+1) = (1103515245 x(k) + 12345) mod 2^31, values x(1)..x(items) mod 1,000,000. */
export function divideInput(items: number, seed: number): number[] {
  const out = new Array<number>(items);
  let x = BigInt(seed);
  for (let k = 0; k < items; k++) {
    x = (1103515245n * x + 12345n) % BigInt(MOD31);
    out[k] = Number(x % 1_000_000n);
  }
  return out;
}

/** `sum over i of sorted[i] * (i + 1)` mod 2^31 - 1 (i from 0). */
export function divideChecksum(sorted: readonly number[]): number {
  let sum = 0n;
  for (let i = 0; i < sorted.length; i++) sum = (sum + BigInt(sorted[i]!) * BigInt(i + 1)) % CHECKSUM_MOD;
  return Number(sum);
}

/** How many entities a divide of `items` takes part in: slices split as evenly as possible into `fanout` parts until at most `leaf` items. */
export function divideEntities(items: number, fanout: number, leaf: number): number {
  if (items <= leaf) return 1;
  let count = 1;
  for (let j = 0; j < fanout; j++) {
    const size = Math.floor(((j + 1) * items) / fanout) - Math.floor((j * items) / fanout);
    count += divideEntities(size, fanout, leaf);
  }
  return count;
}

export interface DivideExpected {
  items: number;
  first: number;
  last: number;
  checksum: number;
  entities: number;
}

/** What a correct /micro/divide answers for these inputs (leaf defaults to 1000). */
export function divideExpected(input: { items: number; fanout: number; leaf?: number; seed: number }): DivideExpected {
  const sorted = divideInput(input.items, input.seed).sort((a, b) => a - b);
  return {
    items: input.items,
    first: sorted[0]!,
    last: sorted.at(-1)!,
    checksum: divideChecksum(sorted),
    entities: divideEntities(input.items, input.fanout, input.leaf ?? MICRO_LIMITS.divide.leaf.default),
  };
}

// ---- /micro/pingpong --------------------------------------------------------

/** The histogram's upper bounds in ns: 1, 2, 5 x 10^k for k = 3..9 (1 us .. 5 s); a last bucket `[null, n]` holds the rest. */
export const PINGPONG_BOUNDS_NS: readonly number[] = [3, 4, 5, 6, 7, 8, 9].flatMap((k) => [1, 2, 5].map((m) => m * 10 ** k));

/**
 * Problems of a ping-pong histogram (empty when it is right): the fixed
 * bounds in order, then `[null, count]`, integer counts summing to `messages`.
 */
export function histogramProblems(histogram: ReadonlyArray<readonly [number | null, number]>, messages: number): string[] {
  const problems: string[] = [];
  const expected = [...PINGPONG_BOUNDS_NS, null];
  const bounds = histogram.map(([le]) => le);
  if (JSON.stringify(bounds) !== JSON.stringify(expected)) {
    problems.push(`histogram: bounds must be ${JSON.stringify(expected)} in this order, got ${JSON.stringify(bounds)}`);
  }
  const bad = histogram.filter(([, n]) => !Number.isInteger(n) || n < 0);
  if (bad.length) problems.push(`histogram: counts must be integers >= 0, got ${JSON.stringify(bad)}`);
  const sum = histogram.reduce((s, [, n]) => s + n, 0);
  if (sum !== messages) problems.push(`histogram: counts sum to ${sum}, expected ${messages} (pairs x messages)`);
  return problems;
}

/** Percentile (0..1) of a ping-pong histogram as the upper bound of the bucket it falls in (null: beyond 5 s). */
export function histogramQuantile(histogram: ReadonlyArray<readonly [number | null, number]>, q: number): number | null {
  const total = histogram.reduce((s, [, n]) => s + n, 0);
  const rank = Math.max(1, Math.ceil(q * total));
  let seen = 0;
  for (const [le, n] of histogram) {
    seen += n;
    if (seen >= rank) return le;
  }
  return null;
}
