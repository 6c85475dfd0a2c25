/**
 * The audit against a correct and against deliberately broken targets: it
 * must find nothing in the first and the named anomaly in each of the others.
 */
import { afterEach, describe, expect, it } from "vitest";
import { startMemoryTarget, type Fault, type MemoryTarget } from "@sfbench/conformance/testing";
import { audit, snapshotStock } from "../src/audit/audit.ts";
import type { CheckoutRecord } from "../src/audit/records.ts";

let target: MemoryTarget | undefined;
afterEach(async () => {
  await target?.close();
  target = undefined;
});

const PRICE = (i: number) => 1 + (i % 7);
const idOf = (p: string | number) => `p-${p}`;
const priceOf = (id: string) => PRICE(Number(id.slice(2)));

async function call(base: string, method: string, path: string, body?: unknown) {
  const res = await fetch(base + path, { method, headers: body ? { "content-type": "application/json" } : {}, body: body ? JSON.stringify(body) : undefined });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

/** A small workload like the k6 checkout script's: fresh user and cart per iteration, audit records out. */
async function workload(base: string, n: number, concurrent = false): Promise<CheckoutRecord[]> {
  const prepared: Array<{ items: Array<[number, number]>; credits: number; user: string; cart: string }> = [];
  for (let i = 0; i < n; i++) {
    const items: Array<[number, number]> = [
      [i % 6, 1 + (i % 3)],
      [(i + 2) % 6, 1],
      [6 + (i % 2), 1],
    ];
    const total = items.reduce((s, [p, a]) => s + PRICE(p) * a, 0);
    const credits = i % 5 === 0 ? total - 1 : total + 10; // every fifth lacks credits
    const user = (await call(base, "POST", "/users", { credits })).body as string;
    const cart = (await call(base, "POST", "/shopping-carts")).body as string;
    for (const [p, a] of items) await call(base, "POST", `/shopping-carts/${cart}/products`, { productId: idOf(p), amount: a });
    prepared.push({ items, credits, user, cart });
  }
  const checkout = async (x: (typeof prepared)[number]): Promise<CheckoutRecord> => {
    const res = await call(base, "POST", "/orders/checkout", { cartId: x.cart, userId: x.user });
    const body = res.body as { orderId?: string; total?: number; error?: string };
    return { sfbench: "audit", kind: "checkout", ...x, status: res.status, orderId: body?.orderId, total: body?.total, error: body?.error };
  };
  if (concurrent) return Promise.all(prepared.map(checkout));
  const out: CheckoutRecord[] = [];
  for (const x of prepared) out.push(await checkout(x));
  return out;
}

async function run(fault: Fault, opts: { stock?: number; n?: number; concurrent?: boolean } = {}) {
  target = await startMemoryTarget({ fault });
  const ids = Array.from({ length: 8 }, (_, i) => idOf(i));
  for (const [i, id] of ids.entries()) await call(target.url, "PATCH", `/products/${id}`, { price: PRICE(i), stock: opts.stock ?? 1000 });
  const before = await snapshotStock(target.url, ids);
  const records = await workload(target.url, opts.n ?? 40, opts.concurrent);
  return audit({ baseUrl: target.url, records, idOf, priceOf, stockBefore: before, quietMs: 50, settleMs: 1000 });
}

describe("the consistency audit", () => {
  it("finds no anomaly in a correct target, including its 409s", async () => {
    const result = await run("none");
    expect(result.examples).toEqual([]);
    expect(result.total).toBe(0);
    expect(result.checked).toMatchObject({ records: 40, products: 8 });
    expect(result.checked.coPurchase).toBeGreaterThan(0);
  });

  it("finds stock drift when a failed checkout does not put stock back", async () => {
    const result = await run("no-rollback");
    expect(result.anomalies["stock-drift"]).toBeGreaterThan(0);
  });

  it("finds a wrong total and the credit drift it causes", async () => {
    const result = await run("wrong-total");
    expect(result.anomalies["wrong-total"]).toBeGreaterThan(0);
  });

  it("finds negative stock when concurrent checkouts oversell", async () => {
    const result = await run("oversell", { stock: 3, n: 30, concurrent: true });
    expect(result.anomalies["negative-stock"]).toBeGreaterThan(0);
  });

  it("finds wrong co-purchase counts", async () => {
    const result = await run("no-co-purchase");
    expect(result.anomalies["co-purchase-wrong"]).toBeGreaterThan(0);
    expect(result.anomalies["stock-drift"]).toBe(0);
  });
});

describe("the analytics cell's audit: the co-purchase graph of earlier checkouts", () => {
  async function graphAudit(fault: Fault, edit: (records: CheckoutRecord[]) => CheckoutRecord[] = (r) => r) {
    target = await startMemoryTarget({ fault });
    for (let i = 0; i < 8; i++) await call(target.url, "PATCH", `/products/${idOf(i)}`, { price: PRICE(i), stock: 1000 });
    const earlier = edit(await workload(target.url, 40));
    // no checkouts of its own and no stock in scope: only the graph its queries read is compared
    return audit({ baseUrl: target.url, records: [], allRecords: earlier, idOf, priceOf, stockBefore: new Map(), quietMs: 50, settleMs: 1000 });
  }

  it("finds nothing when the graph is the one the orders built", async () => {
    const result = await graphAudit("none");
    expect(result.total).toBe(0);
    expect(result.checked.coPurchase).toBe(8);
  });

  it("waits for co-purchases a target counts after answering, longer than the quiet time", async () => {
    target = await startMemoryTarget({ coPurchaseDelayMs: 1500 });
    for (let i = 0; i < 8; i++) await call(target.url, "PATCH", `/products/${idOf(i)}`, { price: PRICE(i), stock: 1000 });
    const earlier = await workload(target.url, 40);
    const result = await audit({ baseUrl: target.url, records: [], allRecords: earlier, idOf, priceOf, stockBefore: new Map(), quietMs: 50, settleMs: 5000 });
    expect(result.total).toBe(0);
    expect(result.checked.coPurchase).toBe(8);
  });

  it("finds a graph the orders did not build", async () => {
    const result = await graphAudit("no-co-purchase");
    expect(result.anomalies["co-purchase-wrong"]).toBeGreaterThan(0);
  });

  it("counts an earlier checkout that got no clear answer by its cart, not as failed", async () => {
    // the answers of completed checkouts lost: their orders are in the graph all the same
    const result = await graphAudit("none", (records) =>
      records.map((r) => (r.status === 200 ? { ...r, status: 0, orderId: undefined, total: undefined } : r)),
    );
    expect(result.total).toBe(0);
  });
});

/** A correct target with its products stocked, and the records of `n` checkouts against it. */
async function correctTargetAfter(n: number) {
  target = await startMemoryTarget({ fault: "none" });
  const ids = Array.from({ length: 8 }, (_, i) => idOf(i));
  for (const [i, id] of ids.entries()) await call(target.url, "PATCH", `/products/${id}`, { price: PRICE(i), stock: 1000 });
  const before = await snapshotStock(target.url, ids);
  return { url: target.url, before, records: await workload(target.url, n) };
}

describe("co-purchase answers that are wrong and stay wrong", () => {
  it("are read again only until settleMs passes, whatever order they arrive in", async () => {
    const { createServer } = await import("node:http");
    target = await startMemoryTarget({ fault: "no-co-purchase" });
    const upstream = target.url;
    for (let i = 0; i < 8; i++) await call(upstream, "PATCH", `/products/${idOf(i)}`, { price: PRICE(i), stock: 1000 });
    const earlier = await workload(upstream, 40);
    // a proxy that answers the co-purchase reads after a random delay, so they arrive in a different order each time
    const reads = new Map<string, number>();
    const proxy = createServer(async (req, res) => {
      const product = /^\/products\/([^/]+)\/freq-items/.exec(req.url ?? "")?.[1];
      if (product) {
        reads.set(product, (reads.get(product) ?? 0) + 1);
        await new Promise((r) => setTimeout(r, Math.random() * 40));
      }
      const r = await fetch(upstream + req.url, { method: req.method });
      res.writeHead(r.status, { "content-type": "application/json" }).end(await r.text());
    });
    await new Promise<void>((ok) => proxy.listen(0, "127.0.0.1", ok));
    try {
      const url = `http://127.0.0.1:${(proxy.address() as { port: number }).port}`;
      const result = await audit({
        baseUrl: url,
        records: [],
        allRecords: earlier,
        idOf,
        priceOf,
        stockBefore: new Map(),
        quietMs: 50,
        settleMs: 1000,
        settleMaxMs: 30_000,
      });
      expect(result.anomalies["co-purchase-wrong"]).toBe(8);
      // the first read and the rereads that fit in settleMs (pauses of 250, 500, then what is left): an answer
      // arriving in another order would restart the wait each time, up to settleMaxMs
      expect(Math.max(...reads.values()), JSON.stringify([...reads])).toBeLessThanOrEqual(4);
    } finally {
      proxy.close();
    }
  });
});

describe("reads the target cannot answer", () => {
  it("are counted as unreadable, not as drift: a 500 on a read proves no lost update", async () => {
    const { createServer } = await import("node:http");
    const { url: upstream, before, records } = await correctTargetAfter(10);
    // a proxy in front of the target that fails every read of a user, as workerd did when SQLite ran out of memory
    const proxy = createServer(async (req, res) => {
      if (req.url?.startsWith("/users/")) {
        res.writeHead(500, { "content-type": "application/json" }).end(JSON.stringify({ error: "internal", message: "SQLITE_NOMEM" }));
        return;
      }
      const r = await fetch(upstream + req.url, { method: req.method });
      res.writeHead(r.status, { "content-type": "application/json" }).end(await r.text());
    });
    await new Promise<void>((ok) => proxy.listen(0, "127.0.0.1", ok));
    try {
      const url = `http://127.0.0.1:${(proxy.address() as { port: number }).port}`;
      const result = await audit({ baseUrl: url, records, idOf, priceOf, stockBefore: before, quietMs: 50 });
      expect(result.anomalies["credit-drift"]).toBe(0);
      expect(result.anomalies.unreadable).toBe(10);
      expect(result.examples[0]).toMatch(/^unreadable: user .*: 500 .*SQLITE_NOMEM/);
    } finally {
      proxy.close();
    }
  });
});

describe("a checkout that got no clear answer and is still running when the audit begins", () => {
  /**
   * The target, with one cart shown as not yet checked out (its user already
   * charged) until `until` says otherwise: a workflow past the client's
   * timeout, between charging and completing the order.
   */
  async function midSaga(...untils: (() => boolean)[]) {
    return sagaShown({ charged: true }, ...untils);
  }

  /**
   * As midSaga; `charged: false` shows the user not charged yet either (its
   * cart and its user agree, its stock is already reserved).
   */
  async function sagaShown(opts: { charged: boolean }, ...untils: (() => boolean)[]) {
    const { createServer } = await import("node:http");
    const { url: upstream, before, records } = await correctTargetAfter(10);
    const lates = records.filter((r) => r.status === 200).slice(0, untils.length);
    const untilOf = new Map(lates.map((r, i) => [`/shopping-carts/${r.cart}`, untils[i]!]));
    const chargeOf = new Map(
      opts.charged ? [] : lates.map((r, i) => [`/users/${r.user}`, { until: untils[i]!, total: r.items.reduce((t, [p, a]) => t + priceOf(idOf(p)) * a, 0) }]),
    );
    // the client gave up on them: no answer
    const ambiguous = records.map((r) => (lates.includes(r) ? { ...r, status: 0, orderId: undefined, total: undefined } : r));
    let lateCartReads = 0;
    const proxy = createServer(async (req, res) => {
      const until = untilOf.get(req.url ?? "");
      const charge = chargeOf.get(req.url ?? "");
      if (until) lateCartReads++;
      const r = await fetch(upstream + req.url, { method: req.method });
      let body = await r.text();
      if (until && !until()) body = JSON.stringify({ ...JSON.parse(body), checkedOut: false });
      if (charge && !charge.until()) {
        const user = JSON.parse(body) as { credits: number };
        body = JSON.stringify({ ...user, credits: user.credits + charge.total });
      }
      res.writeHead(r.status, { "content-type": "application/json" }).end(body);
    });
    await new Promise<void>((ok) => proxy.listen(0, "127.0.0.1", ok));
    const url = `http://127.0.0.1:${(proxy.address() as { port: number }).port}`;
    return { url, records: ambiguous, before, lateCartReads: () => lateCartReads, close: () => proxy.close() };
  }

  it("is read again until its cart and its user agree, then counted as the checkout it became", async () => {
    const started = performance.now();
    const t = await midSaga(() => performance.now() - started > 1500);
    try {
      const result = await audit({ baseUrl: t.url, records: t.records, idOf, priceOf, stockBefore: t.before, quietMs: 50, settleMs: 10_000 });
      expect(result.ambiguous).toBe(1);
      expect(result.total, result.examples.join("\n")).toBe(0);
    } finally {
      t.close();
    }
  });

  it("holding reserved stock before its charge, is waited for by reading the stock again until it completes", async () => {
    const started = performance.now();
    const t = await sagaShown({ charged: false }, () => performance.now() - started > 1500);
    try {
      const result = await audit({ baseUrl: t.url, records: t.records, idOf, priceOf, stockBefore: t.before, quietMs: 50, settleMs: 10_000 });
      expect(result.ambiguous).toBe(1);
      expect(result.total, result.examples.join("\n")).toBe(0);
      // read again after the first read found its cart and user agreeing
      expect(t.lateCartReads()).toBeGreaterThanOrEqual(2);
    } finally {
      t.close();
    }
  });

  it("holding reserved stock that never moves, is counted as stock drift once the settle time is over", async () => {
    const t = await sagaShown({ charged: false }, () => false);
    const started = performance.now();
    try {
      const result = await audit({ baseUrl: t.url, records: t.records, idOf, priceOf, stockBefore: t.before, quietMs: 50, settleMs: 2000 });
      expect(result.anomalies["stock-drift"]).toBeGreaterThan(0);
      expect(result.anomalies["credit-drift"]).toBe(0);
      // bounded by settleMs after the stock was first read (with room for a loaded machine)
      expect(performance.now() - started).toBeLessThan(2000 + 20_000);
    } finally {
      t.close();
    }
  });

  it("is waited for past the settle time while others keep settling: a backlog finishing one after another", async () => {
    let started = Infinity;
    // the second finishes 3.5 s after the audit starts, past settleMs, but within settleMs of the first
    const t = await midSaga(
      () => performance.now() - started > 1500,
      () => performance.now() - started > 3500,
    );
    started = performance.now();
    try {
      const result = await audit({ baseUrl: t.url, records: t.records, idOf, priceOf, stockBefore: t.before, quietMs: 50, settleMs: 3000 });
      expect(result.ambiguous).toBe(2);
      expect(result.total, result.examples.join("\n")).toBe(0);
    } finally {
      t.close();
    }
  });

  it("counts what is still unsettled as drift once nothing settles, bounded by settleMaxMs", async () => {
    let started = Infinity;
    const t = await midSaga(
      () => performance.now() - started > 1000,
      () => false,
    );
    started = performance.now();
    try {
      const result = await audit({ baseUrl: t.url, records: t.records, idOf, priceOf, stockBefore: t.before, quietMs: 50, settleMs: 3000, settleMaxMs: 3000 });
      expect(result.anomalies["credit-drift"]).toBe(1);
      expect(result.ambiguous).toBe(2);
      // bounded: the audit ends (settleMaxMs plus the reads, with room for a loaded machine)
      expect(performance.now() - started).toBeLessThan(3000 + 20_000);
    } finally {
      t.close();
    }
  });

  it("is counted as drift when its cart and its user still disagree once the settle time is over", async () => {
    const t = await midSaga(() => false);
    try {
      const result = await audit({ baseUrl: t.url, records: t.records, idOf, priceOf, stockBefore: t.before, quietMs: 50, settleMs: 3000 });
      expect(result.anomalies["credit-drift"]).toBe(1);
      expect(result.examples.join("\n")).toMatch(/credit-drift: user .*expected .*\(checkout answered 0\)/);
      // the audit waited for it: it read the cart again after its first read (how often fits in the settle time depends on the machine)
      expect(t.lateCartReads()).toBeGreaterThanOrEqual(2);
    } finally {
      t.close();
    }
  });
});
