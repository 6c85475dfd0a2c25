/**
 * Recovery after kill -9, with real processes: the fragile fixture (SPEC 2
 * in memory, durability "in-memory") and node-postgres (its own durable
 * PostgreSQL) each get products, users and checkouts, are killed with
 * kill -9 (every process of the target, node-postgres' PostgreSQL included)
 * and restarted with their data. The recovery measurement and the
 * consistency audit must show that fragile lost what it had and that
 * node-postgres lost nothing.
 */
import { fileURLToPath } from "node:url";
import { killTarget, restartTarget, startTarget, stopTarget, type StartedTarget } from "@sfbench/provider-local";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { audit } from "../src/audit/audit.ts";
import type { CheckoutRecord } from "../src/audit/records.ts";
import { productId, productPrice } from "@sfbench/workloads";
import { measureRecovery, readBack, seedState, type SeededState } from "../src/resilience/recovery.ts";
import { copyTarget } from "./target-copy.ts";

const providerFixtures = fileURLToPath(new URL("../../providers/local/test/fixtures", import.meta.url));
// both targets' own folders under names of this test's, so that nobody else's run of them shares their state and data
const nodePostgres = copyTarget("node-postgres", "np-recovery");
const fragile = copyTarget("fragile", "fragile-recovery", {}, providerFixtures);
const started: string[] = [];

afterEach(async () => {
  for (const name of started.splice(0)) await stopTarget(name);
});
afterAll(() => {
  nodePostgres.remove();
  fragile.remove();
});

async function start(name: string, port: number, targetsRoot: string): Promise<StartedTarget> {
  const t = await startTarget(name, { port, targetsRoot });
  started.push(name);
  return t;
}

async function post(url: string, body?: unknown): Promise<{ status: number; body: unknown }> {
  const res = await fetch(url, {
    method: "POST",
    ...(body !== undefined ? { body: JSON.stringify(body), headers: { "content-type": "application/json" } } : {}),
  });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as unknown) : undefined };
}

/** Checkouts of two loaded products each, recorded as the k6 scripts record them for the audit. */
async function checkouts(baseUrl: string, state: SeededState, n: number): Promise<CheckoutRecord[]> {
  const records: CheckoutRecord[] = [];
  for (let k = 0; k < n; k++) {
    const user = (await post(`${baseUrl}/users`, { credits: 10_000 })).body as string;
    const cart = (await post(`${baseUrl}/shopping-carts`)).body as string;
    const items: [string, number][] = [
      [productId(state.prefix, 1 + k), 1],
      [productId(state.prefix, 2 + k), 2],
    ];
    for (const [productId, amount] of items) expect((await post(`${baseUrl}/shopping-carts/${cart}/products`, { productId, amount })).status).toBe(200);
    const r = await post(`${baseUrl}/orders/checkout`, { cartId: cart, userId: user });
    expect(r.status).toBe(200);
    const { orderId, total } = r.body as { orderId: string; total: number };
    records.push({ sfbench: "audit", kind: "checkout", user, credits: 10_000, cart, items, status: r.status, orderId, total });
  }
  return records;
}

/** Stock the recorded checkouts retracted, by product. */
function taken(records: CheckoutRecord[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const r of records) for (const [p, amount] of r.items) out.set(String(p), (out.get(String(p)) ?? 0) + amount);
  return out;
}

/** Load, check out, kill -9, restart with the data; then measure and audit. */
async function crashAndAudit(t: StartedTarget, name: string) {
  const state = await seedState(t.url, { products: 300, users: 100, prefix: `rec-${name}-${Date.now()}`, seed: 7 });
  expect(await readBack(t.url, state)).toEqual({ checked: 400, missing: 0, changed: 0, examples: [] });
  const records = await checkouts(t.url, state, 10);
  // off-path co-purchase updates land before the kill (SPEC 2.1 step 6 lets them lag behind the answer)
  await new Promise((r) => setTimeout(r, 1500));
  const point = await measureRecovery({
    baseUrl: t.url,
    health: "/health",
    state,
    // the whole system crashes: its nodes and its own PostgreSQL (node-postgres recovers from its WAL)
    kill: () => killTarget(name),
    restart: () => restartTarget(name),
    healthTimeoutMs: 90_000,
    checkoutTimeoutMs: 5_000,
    sample: 200,
    stockTaken: taken(records),
  });
  const touched = new Set(records.flatMap((r) => r.items.map(([p]) => String(p))));
  const result = await audit({
    baseUrl: t.url,
    records,
    idOf: (p) => String(p),
    priceOf: (id) => productPrice(state.seed, Number(id.slice(id.lastIndexOf("-") + 1))),
    // product 0 is the one the recovery checkout bought, not among these
    stockBefore: new Map([...touched].map((p) => [p, state.stock])),
  });
  return { point, result };
}

describe("recovery after kill -9 and a restart with the same data", () => {
  it(
    "the fragile in-memory target comes back healthy but empty: everything loaded is missing and the audit finds the lost updates",
    { timeout: 240_000 },
    async () => {
      const t = await start(fragile.name, 19540, fragile.root);
      const { point, result } = await crashAndAudit(t, fragile.name);
      expect(point.healthAfterS).toBeGreaterThan(0);
      expect(point.firstCheckoutAfterS).toBeNull();
      expect(point.failure).toMatch(/no checkout succeeded within 5 s of health: adding the loaded product rec-fragile-recovery-\d+-0 to a cart answered 404/);
      expect(point).toMatchObject({ products: 300, users: 100, checked: 300, missing: 300, changed: 0 });
      expect(result.anomalies["stock-drift"]).toBe(11);
      expect(result.anomalies["credit-drift"]).toBe(10);
      expect(result.anomalies["ok-without-completed-order"]).toBeGreaterThanOrEqual(10);
      expect(result.total).toBeGreaterThan(0);
    },
  );

  it(
    "node-postgres comes back with everything: the loaded sample reads back unchanged, a checkout succeeds, and the audit finds nothing",
    { timeout: 300_000 },
    async () => {
      const t = await start(nodePostgres.name, 19541, nodePostgres.root);
      const { point, result } = await crashAndAudit(t, nodePostgres.name);
      expect(point.healthAfterS).toBeGreaterThan(0);
      expect(point.firstCheckoutAfterS).toBeGreaterThanOrEqual(point.healthAfterS!);
      expect(point.failure).toBeUndefined();
      expect(point).toMatchObject({ products: 300, users: 100, checked: 300, missing: 0, changed: 0 });
      expect(result.total).toBe(0);
      expect(result.examples).toEqual([]);
    },
  );
});
