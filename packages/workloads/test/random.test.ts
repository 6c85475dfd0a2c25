import { describe, expect, it } from "vitest";
import {
  distinctProducts,
  freqQuery,
  maxExponentialDepth,
  productChooser,
  productId,
  productPrice,
  rankOf,
  zipfCdf,
  zipfProbability,
  type Shape,
} from "../src/distributions.ts";
import { TRACEPARENT, hash32, permutation, rngFor, traceIdOf, traceparent } from "../src/random.ts";
import { arrivalScenarios, checkoutEnv, contentionEnv, seedEnv, stepVus, WorkloadEnvError } from "../src/workload-env.ts";

const draw = <T>(n: number, f: () => T): T[] => Array.from({ length: n }, f);

describe("the seeded generator", () => {
  it("yields the same sequence for the same seed and streams", () => {
    const a = rngFor(42, "step_0", 7);
    const b = rngFor(42, "step_0", 7);
    expect(draw(100, () => a.next32())).toEqual(draw(100, () => b.next32()));
  });

  it("yields different sequences for different seeds, streams and iterations", () => {
    const first = (seed: number, ...ids: (string | number)[]) => draw(4, () => rngFor(seed, ...ids).next32()).join();
    const base = first(42, "step_0", 7);
    expect(first(43, "step_0", 7)).not.toBe(base);
    expect(first(42, "step_1", 7)).not.toBe(base);
    expect(first(42, "step_0", 8)).not.toBe(base);
  });

  it("keeps a stable hash, distinguishing numbers from strings", () => {
    expect(hash32(1, "a")).toBe(hash32(1, "a"));
    expect(hash32(1, "a")).not.toBe(hash32("1", "a"));
    expect(hash32(1, "a")).not.toBe(hash32(1, "a", 0));
    expect(hash32(2 ** 40)).not.toBe(hash32(0));
    // Pinned: a change here would silently change every seeded run (prices, choices, the Zipf permutation).
    expect([hash32(0), hash32("a"), hash32(1, "price", 0), productPrice(1, 0), rngFor(1).next32()]).toEqual([
      1524388973, 1568845799, 215502851, 52, 2267911786,
    ]);
  });

  it("draws integers uniformly over [lo, hi] (chi-square)", () => {
    const rng = rngFor(1, "uniform");
    const bins = 20;
    const n = 200_000;
    const counts = new Array<number>(bins).fill(0);
    for (let i = 0; i < n; i++) {
      const x = rng.int(0, bins - 1);
      counts[x] = (counts[x] ?? 0) + 1;
    }
    const expected = n / bins;
    const chi2 = counts.reduce((sum, c) => sum + (c - expected) ** 2 / expected, 0);
    // 19 degrees of freedom: P(chi2 > 43.8) = 0.001.
    expect(chi2).toBeLessThan(43.8);
    const u = draw(100_000, () => rng.uniform());
    expect(Math.min(...u)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...u)).toBeLessThan(1);
    expect(u.reduce((a, b) => a + b, 0) / u.length).toBeCloseTo(0.5, 2);
  });

  it("covers both ends of int(lo, hi) and rejects an empty range", () => {
    const rng = rngFor(3);
    const seen = new Set(draw(1000, () => rng.int(-2, 2)));
    expect([...seen].sort()).toEqual([-1, -2, 0, 1, 2]);
    expect(() => rng.int(3, 2)).toThrow(RangeError);
  });

  it("makes a permutation of 0..n-1", () => {
    for (const n of [0, 1, 2, 10, 5000]) {
      const p = permutation(n, rngFor(9, "perm", n));
      expect([...p].sort((a, b) => a - b)).toEqual(Array.from({ length: n }, (_, i) => i));
    }
    expect([...permutation(50, rngFor(9))]).toEqual([...permutation(50, rngFor(9))]);
    expect([...permutation(50, rngFor(9))]).not.toEqual(Array.from({ length: 50 }, (_, i) => i));
  });

  it("makes valid W3C traceparent headers, never with all-zero ids", () => {
    const rng = rngFor(5, "trace");
    const headers = draw(2000, () => traceparent(rng, true));
    for (const h of headers) expect(h).toMatch(TRACEPARENT);
    expect(headers.every((h) => h.endsWith("-01"))).toBe(true);
    const unsampled = traceparent(rng, false);
    expect(unsampled).toMatch(TRACEPARENT);
    expect(unsampled.endsWith("-00")).toBe(true);
    expect(new Set(headers.map(traceIdOf)).size).toBe(headers.length);
    expect(traceIdOf("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01")).toBe("0af7651916cd43dd8448eb211c80319c");
  });
});

describe("bounded Zipf", () => {
  it("has a CDF that ends at exactly 1 and ranks that binary search finds", () => {
    const cdf = zipfCdf(5, 1.25);
    expect(cdf[4]).toBe(1);
    expect(rankOf(cdf, 0)).toBe(1);
    expect(rankOf(cdf, cdf[0] as number)).toBe(2);
    expect(rankOf(cdf, 0.999999999)).toBe(5);
  });

  it("matches P(k) of the top ranks within a few percent (N=5000, s=1.25, 200k samples)", () => {
    const n = 5000;
    const s = 1.25;
    const cdf = zipfCdf(n, s);
    const rng = rngFor(11, "zipf");
    const samples = 200_000;
    const counts = new Map<number, number>();
    for (let i = 0; i < samples; i++) {
      const k = rankOf(cdf, rng.uniform());
      counts.set(k, (counts.get(k) ?? 0) + 1);
    }
    for (const k of [1, 2, 3, 5, 10]) {
      const p = zipfProbability(n, s, k);
      const observed = (counts.get(k) ?? 0) / samples;
      expect(Math.abs(observed - p) / p, `rank ${k}: observed ${observed}, P=${p}`).toBeLessThan(0.04);
    }
    expect(zipfProbability(n, s, 1)).toBeCloseTo(0.2428, 3); // 1 / H(5000, 1.25)
  });

  it("reaches every rank, the last one included (small N)", () => {
    const n = 20;
    const choose = productChooser({ n, distribution: "zipf", s: 1.25, seed: 4 });
    const rng = rngFor(4, "reach");
    const seen = new Set(draw(50_000, () => choose(rng)));
    expect(seen.size).toBe(n);
    expect(Math.min(...seen)).toBe(0);
    expect(Math.max(...seen)).toBe(n - 1);
  });

  it("maps ranks to products by a seeded permutation, not to index order", () => {
    const hottest = (seed: number) => {
      const choose = productChooser({ n: 5000, distribution: "zipf", seed });
      const rng = rngFor(seed, "hot");
      const counts = new Map<number, number>();
      for (let i = 0; i < 20_000; i++) {
        const x = choose(rng);
        counts.set(x, (counts.get(x) ?? 0) + 1);
      }
      return [...counts].sort((a, b) => b[1] - a[1])[0]?.[0];
    };
    expect(hottest(1)).toBe(hottest(1));
    expect(new Set([hottest(1), hottest(2), hottest(3)]).size).toBeGreaterThan(1);
  });
});

describe("products", () => {
  it("chooses uniformly over 0..n-1", () => {
    const choose = productChooser({ n: 10, distribution: "uniform", seed: 1 });
    const rng = rngFor(1, "u");
    const counts = new Array<number>(10).fill(0);
    for (let i = 0; i < 100_000; i++) {
      const x = choose(rng);
      counts[x] = (counts[x] ?? 0) + 1;
    }
    for (const c of counts) expect(Math.abs(c - 10_000)).toBeLessThan(500);
  });

  it("draws distinct products for a cart", () => {
    const choose = productChooser({ n: 8, distribution: "zipf", seed: 1 });
    const rng = rngFor(1, "cart");
    for (let i = 0; i < 100; i++) {
      const items = distinctProducts(choose, rng, 8, 8);
      expect(new Set(items).size).toBe(8);
    }
    expect(() => distinctProducts(choose, rng, 9, 8)).toThrow(RangeError);
  });

  it("names products and prices them in [1, 100], the same everywhere", () => {
    expect(productId("p7", 12)).toBe("p7-12");
    const prices = Array.from({ length: 5000 }, (_, i) => productPrice(7, i));
    expect(Math.min(...prices)).toBe(1);
    expect(Math.max(...prices)).toBe(100);
    expect(prices.every(Number.isInteger)).toBe(true);
    expect(productPrice(7, 12)).toBe(prices[12]);
    expect(prices.join()).not.toBe(Array.from({ length: 5000 }, (_, i) => productPrice(8, i)).join());
  });
});

describe("analytics query shapes", () => {
  it("bounds exponential depth by floor(log_top 1000) + 1 in exact integers", () => {
    expect(maxExponentialDepth(2)).toBe(10);
    expect(maxExponentialDepth(3)).toBe(7);
    expect(maxExponentialDepth(10)).toBe(4); // log_10(1000) = 3 exactly, not 2.999...
  });

  it("picks each shape about a third of the time, within its ranges", () => {
    const rng = rngFor(2, "shapes");
    const counts: Record<Shape, number> = { linear: 0, "fan-out": 0, exponential: 0 };
    for (let i = 0; i < 30_000; i++) {
      const q = freqQuery(rng);
      counts[q.shape]++;
      if (q.shape === "linear") expect(q.top === 1 && q.depth >= 1 && q.depth <= 20).toBe(true);
      if (q.shape === "fan-out") expect(q.depth === 2 && q.top >= 2 && q.top <= 20).toBe(true);
      if (q.shape === "exponential") expect(q.top >= 2 && q.top <= 10 && q.depth >= 3 && q.depth <= maxExponentialDepth(q.top)).toBe(true);
    }
    for (const c of Object.values(counts)) expect(Math.abs(c - 10_000)).toBeLessThan(500);
  });
});

describe("the workload environment", () => {
  const base = { BASE_URL: "http://127.0.0.1:8080/", SEED: "7", STEPS: '[{"rate":10,"duration":5},{"rate":20,"duration":3}]' };

  it("applies the defaults of SPEC 4", () => {
    const c = checkoutEnv(base);
    expect(c).toMatchObject({
      baseUrl: "http://127.0.0.1:8080",
      seed: 7,
      traced: false,
      products: 5000,
      productPrefix: "p7",
      distribution: "zipf",
      zipfS: 1.25,
      credits: 1_000_000_000,
      cartMin: 2,
      cartMax: 8,
      amountMin: 1,
      amountMax: 4,
    });
    expect(seedEnv(base).stock).toBe(1_000_000_000);
    expect(contentionEnv(base)).toMatchObject({ hot: 10, failStock: 0.15, failCredits: 0.15 });
  });

  it("reports every problem at once, naming the variable", () => {
    let error: unknown;
    try {
      checkoutEnv({ SEED: "x", DISTRIBUTION: "pareto", STEPS: '[{"rate":0,"duration":5}]', CREDITS: "3e9" });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(WorkloadEnvError);
    const message = (error as Error).message;
    for (const part of [
      "BASE_URL is required",
      "SEED must be an integer",
      "DISTRIBUTION must be one of uniform, zipf",
      "STEPS[0].rate",
      "CREDITS must be an integer in [1, 2147483647]",
    ]) {
      expect(message).toContain(part);
    }
    expect(() => checkoutEnv({ ...base, STEPS: "[]" })).toThrow(/STEPS must be a non-empty JSON array/);
    expect(checkoutEnv({ ...base, TRACED: "1" }).traced).toBe(true);
    expect(() => checkoutEnv({ ...base, TRACED: "yes" })).toThrow(/TRACED must be an integer in \[0, 1\]/);
    expect(() => contentionEnv({ ...base, HOT: "5" })).toThrow(/CART_MAX \(8\) must be <= the number of products to choose from \(5\)/);
  });

  it("builds one constant-arrival-rate scenario per step, back to back", () => {
    const scenarios = arrivalScenarios(checkoutEnv(base));
    expect(Object.keys(scenarios)).toEqual(["step_0", "step_1"]);
    expect(scenarios.step_0).toMatchObject({ executor: "constant-arrival-rate", rate: 10, timeUnit: "1s", duration: "5s", startTime: "0s" });
    expect(scenarios.step_1).toMatchObject({ rate: 20, duration: "3s", startTime: "5s" });
  });

  it("offers a rate in tenths as ten times the rate per 10 s, and refuses finer rates naming the step", () => {
    const scenarios = arrivalScenarios(checkoutEnv({ ...base, STEPS: JSON.stringify([{ rate: 7.5, duration: 6 }]) }));
    expect(scenarios.step_0).toMatchObject({ rate: 75, timeUnit: "10s", duration: "6s" });
    expect(() => checkoutEnv({ ...base, STEPS: JSON.stringify([{ rate: 7.25, duration: 6 }]) })).toThrow(
      /STEPS\[0\]\.rate must be a number in \[0\.1, 1000000\] with at most one decimal/,
    );
    expect(() => checkoutEnv({ ...base, STEPS: JSON.stringify([{ rate: 0.05, duration: 6 }]) })).toThrow(
      /STEPS\[0\]\.rate must be a number in \[0\.1, 1000000\]/,
    );
  });

  it("sizes VU pools from rate x expected iteration time, unless overridden", () => {
    expect(stepVus({ rate: 1000, duration: 1 }, { iterationMs: 100 })).toEqual({ pre: 200, max: 1000 });
    expect(stepVus({ rate: 1, duration: 1 }, { iterationMs: 100 })).toEqual({ pre: 2, max: 10 });
    expect(stepVus({ rate: 1000, duration: 1 }, { iterationMs: 100, preVus: 5, maxVus: 50 })).toEqual({ pre: 5, max: 50 });
  });
});
