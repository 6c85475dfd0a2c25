/**
 * Recovery time vs state size: load N products and users over
 * the API, kill the target, restart it with its data, and measure from the
 * kill until /health answers 200 and until a checkout succeeds; then read a
 * sample of what was loaded back, so a target that came back empty (or
 * changed) shows it.
 *
 * Products get deterministic ids (`${prefix}-${i}`, PATCH upsert) and seeded
 * prices (productPrice), so 1M products need no id list; users are created by
 * POST and their ids kept. Loading is plain HTTP with `concurrency` requests in
 * flight: fine for 10k-100k entities; 1M takes minutes at a few thousand
 * writes per second and belongs to the thesis profile.
 */
import type { RecoveryPoint } from "@sfbench/core";
import { productId, productPrice } from "@sfbench/workloads";

export interface SeedStateOptions {
  products: number;
  users: number;
  /** product ids are `${prefix}-${i}`; a fresh prefix per load, since PATCH adds stock to an existing product */
  prefix: string;
  seed: number;
  /** stock of every product (default 1,000,000) */
  stock?: number;
  /** credits of every user (default 1,000,000) */
  credits?: number;
  concurrency?: number;
  onProgress?: (written: number, total: number) => void;
}

/** What was loaded: enough to know every entity's expected value without storing the products. */
export interface SeededState {
  prefix: string;
  seed: number;
  products: number;
  stock: number;
  credits: number;
  users: string[];
}

export class RecoveryError extends Error {}

async function pool(n: number, limit: number, fn: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, n) }, async () => {
      while (next < n) await fn(next++);
    }),
  );
}

async function send(baseUrl: string, method: string, path: string, body?: unknown, timeoutMs = 10_000): Promise<{ status: number; body: unknown }> {
  const res = await fetch(baseUrl + path, {
    method,
    ...(body !== undefined ? { body: JSON.stringify(body), headers: { "content-type": "application/json" } } : {}),
    signal: AbortSignal.timeout(timeoutMs),
  });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // not JSON: keep the text for the message
  }
  return { status: res.status, body: parsed };
}

const brief = (v: unknown) => JSON.stringify(v).slice(0, 160);

/** Loads `products` products and `users` users over the API; any failed write is an error naming the entity. */
export async function seedState(baseUrl: string, opts: SeedStateOptions): Promise<SeededState> {
  for (const field of ["products", "users"] as const) {
    if (!Number.isInteger(opts[field]) || opts[field] < 0) throw new RecoveryError(`${field}: ${opts[field]} must be a whole number, 0 or more`);
  }
  const stock = opts.stock ?? 1_000_000;
  const credits = opts.credits ?? 1_000_000;
  const concurrency = opts.concurrency ?? 32;
  const total = opts.products + opts.users;
  let written = 0;
  const tick = () => {
    written++;
    if (written % 1000 === 0 || written === total) opts.onProgress?.(written, total);
  };
  await pool(opts.products, concurrency, async (i) => {
    const id = productId(opts.prefix, i);
    const r = await send(baseUrl, "PATCH", `/products/${id}`, { price: productPrice(opts.seed, i), stock });
    if (r.status !== 200) throw new RecoveryError(`loading product ${id}: PATCH answered ${r.status} ${brief(r.body)}`);
    tick();
  });
  const users: string[] = new Array<string>(opts.users);
  await pool(opts.users, concurrency, async (i) => {
    const r = await send(baseUrl, "POST", "/users", { credits });
    if (r.status !== 200 || typeof r.body !== "string") throw new RecoveryError(`loading user ${i}: POST /users answered ${r.status} ${brief(r.body)}`);
    users[i] = r.body;
    tick();
  });
  return { prefix: opts.prefix, seed: opts.seed, products: opts.products, stock, credits, users };
}

export interface ReadBack {
  checked: number;
  /** answered 404: the entity is gone */
  missing: number;
  /** answered with another value than was written (or not 200/404) */
  changed: number;
  examples: string[];
}

/** Spread indices 0..n-1, at most `k` of them. */
function spread(n: number, k: number): number[] {
  if (n <= k) return Array.from({ length: n }, (_, i) => i);
  const step = n / k;
  return Array.from({ length: k }, (_, i) => Math.floor(i * step));
}

/**
 * Reads back a sample of what seedState loaded (at most `sample` products and
 * as many users) and counts what is missing or changed. `stockTaken` is stock
 * the caller retracted since (e.g. the recovery checkout).
 */
export async function readBack(
  baseUrl: string,
  state: SeededState,
  opts: { sample?: number; concurrency?: number; stockTaken?: ReadonlyMap<string, number> } = {},
): Promise<ReadBack> {
  const sample = opts.sample ?? 1000;
  const out: ReadBack = { checked: 0, missing: 0, changed: 0, examples: [] };
  const note = (kind: "missing" | "changed", what: string) => {
    out[kind]++;
    if (out.examples.length < 10) out.examples.push(`${kind}: ${what}`);
  };
  const products = spread(state.products, sample);
  const users = spread(state.users.length, sample);
  await pool(products.length + users.length, opts.concurrency ?? 16, async (k) => {
    out.checked++;
    if (k < products.length) {
      const i = products[k]!;
      const id = productId(state.prefix, i);
      const r = await send(baseUrl, "GET", `/products/${id}`);
      const want = { price: productPrice(state.seed, i), stock: state.stock - (opts.stockTaken?.get(id) ?? 0) };
      const got = r.body as { price?: unknown; stock?: unknown };
      if (r.status === 404) note("missing", `product ${id}`);
      else if (r.status !== 200 || got.price !== want.price || got.stock !== want.stock)
        note("changed", `product ${id}: ${r.status} ${brief(r.body)}, expected ${brief(want)}`);
      return;
    }
    const id = state.users[users[k - products.length]!]!;
    const r = await send(baseUrl, "GET", `/users/${id}`);
    if (r.status === 404) note("missing", `user ${id}`);
    else if (r.status !== 200 || (r.body as { credits?: unknown }).credits !== state.credits)
      note("changed", `user ${id}: ${r.status} ${brief(r.body)}, expected credits ${state.credits}`);
  });
  return out;
}

export interface RecoveryInput {
  /** the target's URL (its balancer's with several nodes) */
  baseUrl: string;
  /** the health route (manifest.health) */
  health: string;
  state: SeededState;
  /** e.g. () => killTarget(name) from @sfbench/provider-local (every process, its own PostgreSQL included); resolves once they are gone */
  kill: () => Promise<unknown>;
  /** e.g. () => restartTarget(name); started right after kill resolves, while health is polled */
  restart: () => Promise<unknown>;
  /** time allowed from the kill until health answers 200 (the manifest's restart timeout) */
  healthTimeoutMs: number;
  /** time allowed after health until a checkout succeeds */
  checkoutTimeoutMs?: number;
  sample?: number;
  /** stock retracted from loaded products since seedState (e.g. checkouts before the kill), by product id */
  stockTaken?: ReadonlyMap<string, number>;
  /** ms between polls (default 50) */
  pollMs?: number;
}

/** One checkout of seeded product 0 with a user and cart made now; undefined when it answered 200, else why not. */
async function tryCheckout(baseUrl: string, state: SeededState): Promise<string | undefined> {
  const product = productId(state.prefix, 0);
  const user = await send(baseUrl, "POST", "/users", { credits: 1_000 });
  if (user.status !== 200) return `POST /users answered ${user.status} ${brief(user.body)}`;
  const cart = await send(baseUrl, "POST", "/shopping-carts");
  if (cart.status !== 200) return `POST /shopping-carts answered ${cart.status} ${brief(cart.body)}`;
  const add = await send(baseUrl, "POST", `/shopping-carts/${cart.body as string}/products`, { productId: product, amount: 1 });
  if (add.status !== 200) return `adding the loaded product ${product} to a cart answered ${add.status} ${brief(add.body)}`;
  const checkout = await send(baseUrl, "POST", "/orders/checkout", { cartId: cart.body, userId: user.body });
  if (checkout.status !== 200) return `checkout answered ${checkout.status} ${brief(checkout.body)}`;
  return undefined;
}

/**
 * Kills the target, restarts it, and measures from the kill: until health
 * answers 200, until a checkout of a loaded product succeeds (its user and
 * cart created after the restart, so what it needs from before is the
 * product), and what of the loaded sample is missing or changed.
 */
export async function measureRecovery(input: RecoveryInput): Promise<RecoveryPoint> {
  const pollMs = input.pollMs ?? 50;
  const seconds = (since: number) => (performance.now() - since) / 1000;
  const t0 = performance.now();
  await input.kill();
  let restartError: string | undefined;
  const restarting = input.restart().catch((e: unknown) => {
    restartError = (e as Error).message;
  });

  let healthAfterS: number | null = null;
  let lastHealth = "no answer";
  const healthDeadline = t0 + input.healthTimeoutMs;
  while (performance.now() < healthDeadline && restartError === undefined) {
    try {
      const res = await fetch(input.baseUrl + input.health, { signal: AbortSignal.timeout(2000) });
      if (res.status === 200) {
        healthAfterS = seconds(t0);
        break;
      }
      lastHealth = `answered ${res.status}`;
    } catch (e) {
      lastHealth = (e as Error).message;
    }
    await new Promise((r) => setTimeout(r, pollMs));
  }
  await restarting;
  const empty = { checked: 0, missing: 0, changed: 0 };
  // a restart that failed while something answered health (another server took the freed port) is a failed restart
  if (restartError !== undefined) healthAfterS = null;
  if (healthAfterS === null) {
    const why = restartError ?? `${input.health} did not answer 200 within ${input.healthTimeoutMs / 1000} s of the kill (last: ${lastHealth})`;
    return { products: input.state.products, users: input.state.users.length, healthAfterS, firstCheckoutAfterS: null, ...empty, failure: `restart: ${why}` };
  }

  let firstCheckoutAfterS: number | null = null;
  let failure: string | undefined;
  const checkoutDeadline = performance.now() + (input.checkoutTimeoutMs ?? 30_000);
  while (performance.now() < checkoutDeadline) {
    try {
      failure = await tryCheckout(input.baseUrl, input.state);
    } catch (e) {
      failure = (e as Error).message;
    }
    if (failure === undefined) {
      firstCheckoutAfterS = seconds(t0);
      break;
    }
    await new Promise((r) => setTimeout(r, pollMs));
  }
  const taken = new Map(input.stockTaken ?? []);
  const bought = productId(input.state.prefix, 0);
  if (firstCheckoutAfterS !== null) taken.set(bought, (taken.get(bought) ?? 0) + 1);
  const back = await readBack(input.baseUrl, input.state, { ...(input.sample !== undefined ? { sample: input.sample } : {}), stockTaken: taken });
  return {
    products: input.state.products,
    users: input.state.users.length,
    healthAfterS,
    firstCheckoutAfterS,
    checked: back.checked,
    missing: back.missing,
    changed: back.changed,
    ...(firstCheckoutAfterS === null ? { failure: `no checkout succeeded within ${(input.checkoutTimeoutMs ?? 30_000) / 1000} s of health: ${failure}` } : {}),
  };
}
