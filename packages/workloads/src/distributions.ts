/**
 * Product choice, product naming and prices, and the analytics query shapes
 * (SPEC 4). Pure: shared by the k6 scripts and by Node.
 */
// a relative import, not @sfbench/core: the k6 scripts import this file and k6 cannot resolve npm packages
import { DISTRIBUTIONS } from "../../core/src/lists.ts";
import { hash32, permutation, rngFor, type Rng } from "./random.ts";

export { DISTRIBUTIONS };
export type Distribution = (typeof DISTRIBUTIONS)[number];
export const DEFAULT_ZIPF_S = 1.25;

/**
 * The CDF of the bounded Zipf distribution over ranks 1..n with exponent s:
 * P(k) = k^-s / H(n, s). `cdf[k - 1]` = P(rank <= k); the last entry is exactly 1.
 */
export function zipfCdf(n: number, s: number): Float64Array {
  if (!Number.isInteger(n) || n < 1) throw new RangeError(`zipf: n must be an integer >= 1, got ${n}`);
  if (!Number.isFinite(s) || s < 0) throw new RangeError(`zipf: s must be a finite number >= 0, got ${s}`);
  const cdf = new Float64Array(n);
  let sum = 0;
  for (let k = 1; k <= n; k++) {
    sum += Math.pow(k, -s);
    cdf[k - 1] = sum;
  }
  for (let i = 0; i < n; i++) cdf[i] = (cdf[i] as number) / sum;
  cdf[n - 1] = 1;
  return cdf;
}

/** P(rank = k) of the bounded Zipf distribution, for checks and reports. */
export function zipfProbability(n: number, s: number, k: number): number {
  let sum = 0;
  for (let j = 1; j <= n; j++) sum += Math.pow(j, -s);
  return Math.pow(k, -s) / sum;
}

/** The rank (1..cdf.length) whose CDF interval holds u in [0, 1): binary search. */
export function rankOf(cdf: Float64Array, u: number): number {
  let lo = 0;
  let hi = cdf.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((cdf[mid] as number) > u) hi = mid;
    else lo = mid + 1;
  }
  return lo + 1;
}

export interface ChooserOptions {
  /** Number of products; indexes are 0..n-1. */
  n: number;
  distribution: Distribution;
  /** Zipf exponent (default 1.25); ignored for uniform. */
  s?: number;
  /** Seeds the rank -> product permutation of Zipf. */
  seed: number;
}

/** Draws a product index in 0..n-1 from the caller's stream. */
export type ProductChooser = (rng: Rng) => number;

/**
 * Uniform over 0..n-1, or bounded Zipf: rank k ~ P(k) ∝ k^-s, mapped to a
 * product index by a permutation seeded by `seed` (so the hottest product is
 * not always index 0, but is the same one in every run with this seed).
 */
export function productChooser({ n, distribution, s = DEFAULT_ZIPF_S, seed }: ChooserOptions): ProductChooser {
  if (!Number.isInteger(n) || n < 1) throw new RangeError(`productChooser: n must be an integer >= 1, got ${n}`);
  if (distribution === "uniform") return (rng) => rng.int(0, n - 1);
  if (distribution !== "zipf") throw new RangeError(`productChooser: distribution must be uniform or zipf, got ${String(distribution)}`);
  const cdf = zipfCdf(n, s);
  const byRank = permutation(n, rngFor(seed, "zipf-permutation", n));
  return (rng) => byRank[rankOf(cdf, rng.uniform()) - 1] as number;
}

/**
 * k distinct product indexes drawn from the chooser (rejection of repeats),
 * so that a cart of size k fans out to k products.
 */
export function distinctProducts(choose: ProductChooser, rng: Rng, k: number, n: number): number[] {
  if (k > n) throw new RangeError(`distinctProducts: cannot draw ${k} distinct products out of ${n}`);
  const picked: number[] = [];
  while (picked.length < k) {
    const index = choose(rng);
    if (!picked.includes(index)) picked.push(index);
  }
  return picked;
}

/** The id of product `index`: `${prefix}-${index}`. */
export function productId(prefix: string, index: number): string {
  return `${prefix}-${index}`;
}

/** The price of product `index` in a run with this seed: uniform in [1, 100], known without a read. */
export function productPrice(seed: number, index: number): number {
  return 1 + (hash32(seed, "price", index) % 100);
}

// ---- contention's products (SPEC 4, rollback path)

/** Price indexes of the contention products, far from any seeded product index. */
const HOT_PRICE_OFFSET = 1_000_000_000;
const SOLD_OUT_PRICE_INDEX = 2_000_000_000;

export function hotProductId(prefix: string, i: number): string {
  return `${prefix}-hot-${i}`;
}
export function hotProductPrice(seed: number, i: number): number {
  return productPrice(seed, HOT_PRICE_OFFSET + i);
}
export function soldOutProductId(prefix: string): string {
  return `${prefix}-soldout`;
}
export function soldOutProductPrice(seed: number): number {
  return productPrice(seed, SOLD_OUT_PRICE_INDEX);
}

// ---- analytics query shapes (SPEC 4)

export type Shape = "linear" | "fan-out" | "exponential";
export const SHAPES: readonly Shape[] = ["linear", "fan-out", "exponential"];

export interface FreqQuery {
  shape: Shape;
  top: number;
  depth: number;
}

/** floor(log_top(1000)) + 1, in integers (floating log gives log_10(1000) = 2.999...). */
export function maxExponentialDepth(top: number): number {
  let depth = 0;
  for (let visited = top; visited <= 1000; visited *= top) depth++;
  return depth + 1;
}

/**
 * One analytics query: each shape with probability 1/3.
 * linear: top 1, depth U[1, 20]; fan-out: depth 2, top U[2, 20];
 * exponential: top U[2, 10], depth U[3, floor(log_top 1000) + 1].
 */
export function freqQuery(rng: Rng): FreqQuery {
  const shape = rng.pick(SHAPES);
  switch (shape) {
    case "linear":
      return { shape, top: 1, depth: rng.int(1, 20) };
    case "fan-out":
      return { shape, top: rng.int(2, 20), depth: 2 };
    case "exponential": {
      const top = rng.int(2, 10);
      return { shape, top, depth: rng.int(3, maxExponentialDepth(top)) };
    }
  }
}
