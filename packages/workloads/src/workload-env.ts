/**
 * The env contract of the k6 workloads: parse and validate `__ENV` once, with
 * errors that name the variable, the value and what is allowed. Pure (no
 * node:*, no k6/*): the k6 scripts import it, and so do the tests and the worker.
 *
 * zod is not used here because k6 cannot import npm packages; the checks are
 * written out instead.
 */
import { MICRO_ROUTES } from "../../core/src/lists.ts";
import { DEFAULT_ZIPF_S, DISTRIBUTIONS, type Distribution } from "./distributions.ts";

export type Env = Readonly<Record<string, string | undefined>>;

/** Largest int a target accepts (SPEC 2). */
const MAX_INT = 2 ** 31 - 1;

export class WorkloadEnvError extends Error {
  constructor(
    readonly workload: string,
    readonly problems: string[],
  ) {
    super(`${workload}: invalid environment: ${problems.join("; ")}`);
    this.name = "WorkloadEnvError";
  }
}

/** Reads variables and collects every problem, so one run reports them all. */
class Reader {
  readonly problems: string[] = [];
  constructor(private readonly env: Env) {}

  private raw(name: string): string | undefined {
    const value = this.env[name];
    return value === undefined || value.trim() === "" ? undefined : value.trim();
  }

  string(name: string, fallback?: string): string {
    const value = this.raw(name) ?? fallback;
    if (value === undefined) {
      this.problems.push(`${name} is required`);
      return "";
    }
    return value;
  }

  int(name: string, fallback: number | undefined, min: number, max = MAX_INT): number {
    const raw = this.raw(name);
    if (raw === undefined) {
      if (fallback === undefined) this.problems.push(`${name} is required (an integer in [${min}, ${max}])`);
      return fallback ?? min;
    }
    const value = Number(raw);
    if (!Number.isSafeInteger(value) || value < min || value > max) {
      this.problems.push(`${name} must be an integer in [${min}, ${max}], got "${raw}"`);
      return fallback ?? min;
    }
    return value;
  }

  optionalInt(name: string, min: number, max = MAX_INT): number | undefined {
    return this.raw(name) === undefined ? undefined : this.int(name, undefined, min, max);
  }

  number(name: string, fallback: number, min: number, max: number): number {
    const raw = this.raw(name);
    if (raw === undefined) return fallback;
    const value = Number(raw);
    if (!Number.isFinite(value) || value < min || value > max) {
      this.problems.push(`${name} must be a number in [${min}, ${max}], got "${raw}"`);
      return fallback;
    }
    return value;
  }

  oneOf<T extends string>(name: string, allowed: readonly T[], fallback: T): T {
    const raw = this.raw(name);
    if (raw === undefined) return fallback;
    if (!(allowed as readonly string[]).includes(raw)) {
      this.problems.push(`${name} must be one of ${allowed.join(", ")}, got "${raw}"`);
      return fallback;
    }
    return raw as T;
  }

  url(name: string): string {
    const raw = this.string(name);
    if (raw !== "" && !/^https?:\/\/[^/\s]+(\/\S*)?$/.test(raw)) {
      this.problems.push(`${name} must be an http(s) URL such as http://127.0.0.1:8080, got "${raw}"`);
    }
    return raw.replace(/\/+$/, "");
  }

  steps(name: string): Step[] {
    const raw = this.raw(name);
    const example = `e.g. [{"rate":100,"duration":30},{"rate":200,"duration":30}]`;
    if (raw === undefined) {
      this.problems.push(`${name} is required: a JSON array of {rate: iterations/s, duration: seconds}, ${example}`);
      return [];
    }
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch {
      this.problems.push(`${name} is not valid JSON (${example}), got "${raw}"`);
      return [];
    }
    if (!Array.isArray(value) || value.length === 0) {
      this.problems.push(`${name} must be a non-empty JSON array, ${example}`);
      return [];
    }
    const steps: Step[] = [];
    value.forEach((item: unknown, i) => {
      const step = item as { rate?: unknown; duration?: unknown } | null;
      const rate = step?.rate;
      const duration = step?.duration;
      // tenths allowed: a target whose knee is at 7/s needs 7.5/s to be measured to 10%
      const okRate =
        typeof rate === "number" &&
        Number.isInteger(Math.round(rate * 10)) &&
        Math.abs(rate * 10 - Math.round(rate * 10)) < 1e-9 &&
        rate >= 0.1 &&
        rate <= 1_000_000;
      const okDuration = typeof duration === "number" && Number.isInteger(duration) && duration >= 1 && duration <= 86_400;
      if (!okRate) this.problems.push(`${name}[${i}].rate must be a number in [0.1, 1000000] with at most one decimal (iterations per second)`);
      if (!okDuration) this.problems.push(`${name}[${i}].duration must be an integer in [1, 86400] (seconds)`);
      if (okRate && okDuration) steps.push({ rate, duration });
    });
    return steps;
  }

  done<T>(workload: string, config: T): T {
    if (this.problems.length > 0) throw new WorkloadEnvError(workload, this.problems);
    return config;
  }
}

// ---- the contracts

export interface Step {
  /** Iterations started per second (open model). */
  rate: number;
  /** Seconds. */
  duration: number;
}

export interface BaseConfig {
  baseUrl: string;
  seed: number;
  /** TRACED=1: the requests' traceparent says sampled (the traced phase); otherwise it says not sampled */
  traced: boolean;
}

export interface CatalogConfig extends BaseConfig {
  products: number;
  productPrefix: string;
}

export interface ArrivalConfig extends CatalogConfig {
  distribution: Distribution;
  zipfS: number;
  steps: Step[];
  /** Per step; default from rate x iterationMs. */
  preVus?: number;
  maxVus?: number;
  /** Expected iteration duration, to size the VU pools. */
  iterationMs: number;
  /** Seconds an iteration may still run after its step ends; default GRACEFUL_STOP_S. */
  gracefulStopS?: number;
}

export interface CartConfig {
  cartMin: number;
  cartMax: number;
  amountMin: number;
  amountMax: number;
}

export interface SeedConfig extends CatalogConfig {
  stock: number;
  vus: number;
  maxDuration: number;
}
export interface CheckoutConfig extends ArrivalConfig, CartConfig {
  credits: number;
}
export type AnalyticsConfig = ArrivalConfig;
export interface PopulateConfig extends CatalogConfig, CartConfig {
  populate: number;
  vus: number;
  /** checkouts per second at most, over all VUs; absent: as fast as the VUs go */
  rate?: number;
  users: number;
  credits: number;
  maxDuration: number;
}
export interface ContentionConfig extends ArrivalConfig, CartConfig {
  hot: number;
  hotStock: number;
  failStock: number;
  failCredits: number;
}

const DEFAULTS = {
  products: 5000,
  stock: 1_000_000_000,
  credits: 1_000_000_000,
  cartMin: 2,
  cartMax: 8,
  amountMin: 1,
  amountMax: 4,
  populate: 20_000,
  hot: 10,
  failStock: 0.15,
  failCredits: 0.15,
} as const;

function base(r: Reader): BaseConfig {
  return { baseUrl: r.url("BASE_URL"), seed: r.int("SEED", undefined, 0), traced: r.int("TRACED", 0, 0, 1) === 1 };
}

function catalog(r: Reader): CatalogConfig {
  const b = base(r);
  const products = r.int("PRODUCTS", DEFAULTS.products, 1, 10_000_000);
  const productPrefix = r.string("PRODUCT_PREFIX", `p${b.seed}`);
  // The longest id is prefix + "-" + digits (or "-soldout"); SPEC 2 allows 128 characters.
  if (productPrefix.length > 100) r.problems.push(`PRODUCT_PREFIX must be at most 100 characters, got ${productPrefix.length}`);
  if (!/^[A-Za-z0-9._~-]*$/.test(productPrefix)) r.problems.push(`PRODUCT_PREFIX must use only URL-safe characters [A-Za-z0-9._~-], got "${productPrefix}"`);
  return { ...b, products, productPrefix };
}

function arrival(r: Reader, iterationMs: number): ArrivalConfig {
  const c = catalog(r);
  const preVus = r.optionalInt("PRE_VUS", 1, 100_000);
  const maxVus = r.optionalInt("MAX_VUS", 1, 100_000);
  if (preVus !== undefined && maxVus !== undefined && maxVus < preVus) r.problems.push(`MAX_VUS (${maxVus}) must be >= PRE_VUS (${preVus})`);
  return {
    ...c,
    distribution: r.oneOf("DISTRIBUTION", DISTRIBUTIONS, "zipf"),
    zipfS: r.number("ZIPF_S", DEFAULT_ZIPF_S, 0, 10),
    steps: r.steps("STEPS"),
    preVus,
    maxVus,
    iterationMs: r.int("ITERATION_MS", iterationMs, 1, 600_000),
    gracefulStopS: r.int("GRACEFUL_STOP_S", GRACEFUL_STOP_S, 0, 600),
  };
}

function cart(r: Reader, products: number): CartConfig {
  const cartMin = r.int("CART_MIN", DEFAULTS.cartMin, 1, 100);
  const cartMax = r.int("CART_MAX", DEFAULTS.cartMax, 1, 100);
  const amountMin = r.int("AMOUNT_MIN", DEFAULTS.amountMin, 1, 1000);
  const amountMax = r.int("AMOUNT_MAX", DEFAULTS.amountMax, 1, 1000);
  if (cartMax < cartMin) r.problems.push(`CART_MAX (${cartMax}) must be >= CART_MIN (${cartMin})`);
  if (cartMax > products) r.problems.push(`CART_MAX (${cartMax}) must be <= the number of products to choose from (${products}): carts hold distinct products`);
  if (amountMax < amountMin) r.problems.push(`AMOUNT_MAX (${amountMax}) must be >= AMOUNT_MIN (${amountMin})`);
  return { cartMin, cartMax, amountMin, amountMax };
}

/** k6/seed.ts: PATCH every product once. */
export function seedEnv(env: Env): SeedConfig {
  const r = new Reader(env);
  const c = catalog(r);
  return r.done("seed", {
    ...c,
    stock: r.int("STOCK", DEFAULTS.stock, 0),
    vus: r.int("VUS", 16, 1, 10_000),
    maxDuration: r.int("MAX_DURATION", 3600, 1, 86_400),
  });
}

/** k6/checkout.ts (SPEC 4 checkout). */
export function checkoutEnv(env: Env): CheckoutConfig {
  const r = new Reader(env);
  const a = arrival(r, 100);
  return r.done("checkout", { ...a, ...cart(r, a.products), credits: r.int("CREDITS", DEFAULTS.credits, 1) });
}

/** k6/analytics.ts (SPEC 4 analytics, query phase). */
export function analyticsEnv(env: Env): AnalyticsConfig {
  const r = new Reader(env);
  return r.done("analytics", arrival(r, 50));
}

/** k6/populate.ts (SPEC 4 analytics, populate phase): uniform checkouts at full speed, or at most RATE per second. */
export function populateEnv(env: Env): PopulateConfig {
  const r = new Reader(env);
  const c = catalog(r);
  const rate = r.optionalInt("RATE", 1, 100_000);
  return r.done("populate", {
    ...c,
    ...cart(r, c.products),
    populate: r.int("POPULATE", DEFAULTS.populate, 1, 100_000_000),
    vus: r.int("VUS", 16, 1, 10_000),
    ...(rate !== undefined ? { rate } : {}),
    users: r.int("USERS", 8, 1, 10_000),
    credits: r.int("CREDITS", DEFAULTS.credits, 1),
    maxDuration: r.int("MAX_DURATION", 3600, 1, 86_400),
  });
}

/** k6/contention.ts (SPEC 4 contention, the rollback path). */
export function contentionEnv(env: Env): ContentionConfig {
  const r = new Reader(env);
  const a = arrival(r, 100);
  const hot = r.int("HOT", DEFAULTS.hot, 1, 100_000);
  const config = {
    ...a,
    ...cart(r, hot),
    hot,
    hotStock: r.int("HOT_STOCK", DEFAULTS.stock, 0),
    failStock: r.number("FAIL_STOCK", DEFAULTS.failStock, 0, 1),
    failCredits: r.number("FAIL_CREDITS", DEFAULTS.failCredits, 0, 1),
  };
  return r.done("contention", config);
}

export type MicroRoute = (typeof MICRO_ROUTES)[number];
/** the parameter each micro route takes (docs/spec.md 8), with its default and range */
export const MICRO_PARAMETER: Record<MicroRoute, { name: string; env: string; default: number; min: number; max: number } | null> = {
  empty: null,
  math: { name: "n", env: "N", default: 1000, min: 1, max: 10_000_000 },
  sleep: { name: "ms", env: "MS", default: 100, min: 0, max: 10_000 },
  io: { name: "bytes", env: "BYTES", default: 1024, min: 1, max: 1_048_576 },
};

export interface MicroConfig extends BaseConfig {
  route: MicroRoute;
  /** the route's parameter (n, ms or bytes), absent for empty */
  parameter?: { name: string; value: number };
  /** calls are spread over this many entities (?key= / body key) */
  keys: number;
  /** prefix of the entity keys */
  keyPrefix: string;
  steps: Step[];
  preVus?: number;
  maxVus?: number;
  iterationMs: number;
}

/** k6/micro.ts (docs/spec.md 8, invocation overhead): one route at fixed arrival rates. */
export function microEnv(env: Env): MicroConfig {
  const r = new Reader(env);
  const b = base(r);
  const route = r.oneOf("ROUTE", MICRO_ROUTES, "empty");
  const p = MICRO_PARAMETER[route];
  const value = p ? r.int(p.env, p.default, p.min, p.max) : undefined;
  const preVus = r.optionalInt("PRE_VUS", 1, 100_000);
  const maxVus = r.optionalInt("MAX_VUS", 1, 100_000);
  if (preVus !== undefined && maxVus !== undefined && maxVus < preVus) r.problems.push(`MAX_VUS (${maxVus}) must be >= PRE_VUS (${preVus})`);
  const keyPrefix = r.string("KEY_PREFIX", `m${b.seed}`);
  if (!/^[A-Za-z0-9._~-]{1,100}$/.test(keyPrefix)) r.problems.push(`KEY_PREFIX must be 1-100 URL-safe characters [A-Za-z0-9._~-], got "${keyPrefix}"`);
  return r.done("micro", {
    ...b,
    route,
    ...(p && value !== undefined ? { parameter: { name: p.name, value } } : {}),
    keys: r.int("KEYS", 64, 1, 100_000),
    keyPrefix,
    steps: r.steps("STEPS"),
    preVus,
    maxVus,
    iterationMs: r.int("ITERATION_MS", route === "sleep" ? (value ?? 100) + 20 : 20, 1, 600_000),
  });
}

// ---- k6 options built from the config

/** The subset of k6's scenario options the arrival-rate workloads use. */
export interface ArrivalScenario {
  executor: "constant-arrival-rate";
  rate: number;
  /** "10s" for a rate in tenths (rate x 10 per 10 s): k6 takes whole rates per time unit */
  timeUnit: "1s" | "10s";
  duration: string;
  startTime: string;
  preAllocatedVUs: number;
  maxVUs: number;
  gracefulStop: string;
}

/** Seconds an iteration may still run after its step ends (in-flight checkouts finish and log their audit record). */
export const GRACEFUL_STOP_S = 30;

/** VUs a step needs: preallocated for rate x expected duration (x2), up to 10x that when the target slows down. */
export function stepVus(step: Step, config: Pick<ArrivalConfig, "iterationMs" | "preVus" | "maxVus">): { pre: number; max: number } {
  const expected = Math.ceil((step.rate * config.iterationMs) / 1000);
  const pre = config.preVus ?? Math.max(2, 2 * expected);
  const max = config.maxVus ?? Math.max(pre, 10 * expected, 10);
  return { pre: Math.min(pre, max), max };
}

/**
 * One constant-arrival-rate scenario per step, `step_0`, `step_1`, ..., each
 * starting when the previous one ends (open model: k6 counts the iterations
 * it could not start as dropped_iterations, per scenario).
 */
export function arrivalScenarios(
  config: Pick<ArrivalConfig, "steps" | "iterationMs" | "preVus" | "maxVus" | "gracefulStopS">,
): Record<string, ArrivalScenario> {
  const scenarios: Record<string, ArrivalScenario> = {};
  let start = 0;
  config.steps.forEach((step, i) => {
    const { pre, max } = stepVus(step, config);
    scenarios[`step_${i}`] = {
      executor: "constant-arrival-rate",
      ...(Number.isInteger(step.rate) ? { rate: step.rate, timeUnit: "1s" as const } : { rate: Math.round(step.rate * 10), timeUnit: "10s" as const }),
      duration: `${step.duration}s`,
      startTime: `${start}s`,
      preAllocatedVUs: pre,
      maxVUs: max,
      gracefulStop: `${config.gracefulStopS ?? GRACEFUL_STOP_S}s`,
    };
    start += step.duration;
  });
  return scenarios;
}
