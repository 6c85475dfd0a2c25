/**
 * Seeded randomness shared by the k6 scripts (run by k6's JavaScript engine)
 * and by Node (tests, analysis). Pure: no node:* and no k6/* imports.
 *
 * Every random choice of a workload comes from an Rng made by
 * `rngFor(seed, ...streamIds)`, so a (seed, stream) pair always yields the same
 * sequence, whichever VU or process draws it (SPEC 4: every random choice is
 * seeded).
 */

/** A part of a hash or a stream id: an integer or a string. */
export type StreamId = number | string;

// The code below avoids for-of, rest arguments and small helper calls in hot
// paths: k6's JavaScript engine interprets them slowly (a for-of over three
// items costs more than hashing them).

const C1 = 0xcc9e2d51;
const C2 = 0x1b873593;

/** Type markers, so that hash(1) and hash("1") differ. */
const INT_MARK = 0x1f;
const STRING_MARK = 0x2f;

/**
 * MurmurHash3 (x86, 32-bit) over a sequence of 32-bit words derived from the
 * parts, run twice with different seeds in one pass: [h1, h2], unsigned.
 */
function hashPair(seed1: number, seed2: number, parts: readonly StreamId[]): [number, number] {
  let h1 = seed1 | 0;
  let h2 = seed2 | 0;
  let words = 0;
  let k = 0;
  const mix = (word: number): void => {
    k = Math.imul(word, C1);
    k = (k << 15) | (k >>> 17);
    k = Math.imul(k, C2);
    h1 ^= k;
    h1 = (h1 << 13) | (h1 >>> 19);
    h1 = (Math.imul(h1, 5) + 0xe6546b64) | 0;
    h2 ^= k;
    h2 = (h2 << 13) | (h2 >>> 19);
    h2 = (Math.imul(h2, 5) + 0xe6546b64) | 0;
    words++;
  };
  for (let p = 0; p < parts.length; p++) {
    const part = parts[p];
    if (typeof part === "number" && part % 1 === 0 && part <= Number.MAX_SAFE_INTEGER && part >= -Number.MAX_SAFE_INTEGER) {
      mix(INT_MARK);
      mix(part | 0);
      mix(Math.floor(part / 0x100000000) | 0);
    } else {
      const text = String(part);
      mix(STRING_MARK);
      mix(text.length);
      for (let i = 0; i < text.length; i++) mix(text.charCodeAt(i));
    }
  }
  return [fmix32(h1 ^ words), fmix32(h2 ^ words)];
}

/** MurmurHash3's finaliser: every input bit affects every output bit. */
function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/**
 * A stable 32-bit hash (unsigned) of integers and strings, the same in Node and
 * in k6. `hash32(1, "a")` differs from `hash32("1", "a")` and from `hash32(1, "a", 0)`.
 */
export function hash32(...parts: StreamId[]): number {
  return hashPair(0x5bd1e995, 0, parts)[0];
}

const TWO_POW_32 = 0x100000000;
const TWO_POW_53 = 2 ** 53;

/**
 * sfc32 (Chris Doty-Humphrey's Small Fast Counting generator): 128 bits of
 * state, passes PractRand, only 32-bit integer operations (fast in k6's engine).
 * Streams are seeded from a 64-bit hash of (seed, stream ids), so a run's
 * millions of iteration streams do not collide.
 */
export class Rng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  /** Seeds as PractRand does from a 64-bit seed (lo, hi): a = 0, b = lo, c = hi, counter 1, 12 rounds. */
  constructor(lo: number, hi: number) {
    this.a = 0;
    this.b = lo | 0;
    this.c = hi | 0;
    this.d = 1;
    for (let i = 0; i < 12; i++) this.next32();
  }

  /** The next unsigned 32-bit integer. */
  next32(): number {
    const a = this.a;
    const b = this.b;
    const c = this.c;
    const t = (((a + b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = b ^ (b >>> 9);
    this.b = (c + (c << 3)) | 0;
    this.c = (((c << 21) | (c >>> 11)) + t) | 0;
    return t >>> 0;
  }

  /** Uniform in [0, 1) with 53 random bits (so 1 - uniform() is never 0). */
  uniform(): number {
    const hi = this.next32() >>> 5; // 27 bits
    const lo = this.next32() >>> 6; // 26 bits
    return (hi * 67108864 + lo) / TWO_POW_53;
  }

  /** Uniform integer in [lo, hi], both ends included. */
  int(lo: number, hi: number): number {
    if (!Number.isSafeInteger(lo) || !Number.isSafeInteger(hi) || hi < lo) {
      throw new RangeError(`int(${lo}, ${hi}): expected integers with lo <= hi`);
    }
    const span = hi - lo + 1;
    if (span <= TWO_POW_32) {
      // Rejection sampling: exactly uniform, no modulo bias.
      const limit = TWO_POW_32 - (TWO_POW_32 % span);
      let x = this.next32();
      while (x >= limit) x = this.next32();
      return lo + (x % span);
    }
    return lo + Math.floor(this.uniform() * span);
  }

  /**
   * Fisher-Yates shuffle in place, exactly uniform (rejection sampling), with
   * the generator inlined: building a 5000-product Zipf table in every k6 VU
   * is then a few milliseconds.
   */
  shuffle(items: Int32Array): void {
    let a = this.a;
    let b = this.b;
    let c = this.c;
    let d = this.d;
    for (let i = items.length - 1; i > 0; i--) {
      const span = i + 1;
      const limit = TWO_POW_32 - (TWO_POW_32 % span);
      let x: number;
      do {
        const t = (((a + b) | 0) + d) | 0;
        d = (d + 1) | 0;
        a = b ^ (b >>> 9);
        b = (c + (c << 3)) | 0;
        c = (((c << 21) | (c >>> 11)) + t) | 0;
        x = t >>> 0;
      } while (x >= limit);
      const j = x % span;
      const tmp = items[i] as number;
      items[i] = items[j] as number;
      items[j] = tmp;
    }
    this.a = a;
    this.b = b;
    this.c = c;
    this.d = d;
  }

  /** True with probability p. */
  chance(p: number): boolean {
    return this.uniform() < p;
  }

  /** One element of a non-empty array, uniformly. */
  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new RangeError("pick: empty array");
    return items[this.int(0, items.length - 1)] as T;
  }
}

/**
 * The generator of one stream: `rngFor(seed, "step_0", 42)` always yields the
 * same sequence, and a different one from `rngFor(seed, "step_0", 43)`.
 */
export function rngFor(seed: StreamId, ...streamIds: StreamId[]): Rng {
  streamIds.unshift(seed);
  const [lo, hi] = hashPair(0x243f6a88, 0x85a308d3, streamIds);
  return new Rng(lo, hi);
}

/** A seeded random permutation of 0..n-1 (Fisher-Yates). */
export function permutation(n: number, rng: Rng): Int32Array {
  if (!Number.isInteger(n) || n < 0 || n > 0x7fffffff) throw new RangeError(`permutation(${n}): expected an integer in [0, 2^31-1]`);
  const out = new Int32Array(n);
  for (let i = 0; i < n; i++) out[i] = i;
  rng.shuffle(out);
  return out;
}

function hex32(x: number): string {
  return (x >>> 0).toString(16).padStart(8, "0");
}

/** W3C trace context: version 00, 32-hex trace id, 16-hex parent id, flags 01 (sampled) or 00. */
export const TRACEPARENT = /^00-(?!0{32})[0-9a-f]{32}-(?!0{16})[0-9a-f]{16}-0[01]$/;

/**
 * A fresh W3C `traceparent` header value, `00-<trace id>-<parent id>-<flags>`:
 * flags 01 (sampled) only in the traced phase, so a traced target writes spans
 * for those requests alone (SPEC 3). Neither id is ever all zeros (an all-zero
 * id is invalid). The trace id is there either way: the audit records carry it.
 */
export function traceparent(rng: Rng, sampled: boolean): string {
  const t0 = rng.next32();
  const t1 = rng.next32();
  const t2 = rng.next32();
  let t3 = rng.next32();
  const p0 = rng.next32();
  let p1 = rng.next32();
  if ((t0 | t1 | t2 | t3) === 0) t3 = 1;
  if ((p0 | p1) === 0) p1 = 1;
  return `00-${hex32(t0)}${hex32(t1)}${hex32(t2)}${hex32(t3)}-${hex32(p0)}${hex32(p1)}-${sampled ? "01" : "00"}`;
}

/** The trace id (32 hex) of a traceparent header value. */
export function traceIdOf(header: string): string {
  return header.slice(3, 35);
}
