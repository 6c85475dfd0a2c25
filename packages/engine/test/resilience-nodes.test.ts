/**
 * A bundled system as several real nodes: node-postgres (n Fastify processes
 * on its one PostgreSQL, behind sfbench's balancer) under checkout load loses
 * one node to kill -9 and gains one with addNode. Requests in flight on the
 * killed node may fail (502), nothing else does, and the consistency audit
 * finds no anomaly: the nodes share one state.
 *
 * node-postgres' own target.json declares no nodes (its owner adds
 * `"nodes": {"max": 8, "elastic": true}` with a version bump); this test runs
 * a copy of the folder whose target.json has that declaration.
 */
import { addNode, killNode, runningTarget, startTarget, stopTarget, targetPids } from "@sfbench/provider-local";
import type { SeriesPoint } from "@sfbench/core";
import { afterAll, describe, expect, it } from "vitest";
import { audit } from "../src/audit/audit.ts";
import type { CheckoutRecord } from "../src/audit/records.ts";
import { productId, productPrice } from "@sfbench/workloads";
import { analyzeFault, type FailedRequest } from "../src/resilience/fault.ts";
import { seedState } from "../src/resilience/recovery.ts";
import { copyTarget } from "./target-copy.ts";

const NAME = "np-nodes";
const copy = copyTarget("node-postgres", NAME, { nodes: { max: 4, elastic: true } });
afterAll(async () => {
  await stopTarget(NAME);
  copy.remove();
});

async function call(url: string, method: string, body?: unknown): Promise<{ status: number; body: unknown }> {
  try {
    const res = await fetch(url, {
      method,
      ...(body !== undefined ? { body: JSON.stringify(body), headers: { "content-type": "application/json" } } : {}),
      signal: AbortSignal.timeout(10_000),
    });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // keep the text
    }
    return { status: res.status, body: parsed };
  } catch {
    return { status: 0, body: undefined };
  }
}

describe("node-postgres as several nodes", () => {
  it("loses a node to kill -9 and gains one under checkout load, and the audit finds nothing wrong", { timeout: 300_000 }, async () => {
    const t = await startTarget(NAME, { targetsRoot: copy.root, nodes: 2, port: 19550 });
    expect(t.balancer?.port).toBe(19550);
    const state = await seedState(t.url, { products: 50, users: 0, prefix: `np-nodes-${Date.now()}`, seed: 3 });

    const records: CheckoutRecord[] = [];
    const failures: FailedRequest[] = [];
    const successes: number[] = [];
    const t0 = Date.now();
    const runFor = 9_000;
    let k = 0;
    const worker = async () => {
      while (Date.now() - t0 < runFor) {
        const i = k++;
        const user = await call(`${t.url}/users`, "POST", { credits: 100_000 });
        const cart = await call(`${t.url}/shopping-carts`, "POST");
        if (user.status !== 200 || cart.status !== 200) continue;
        const items: [string, number][] = [
          [productId(state.prefix, i % 50), 1],
          [productId(state.prefix, (i * 7 + 1) % 50), 2],
        ];
        let added = true;
        for (const [productId, amount] of items)
          added &&= (await call(`${t.url}/shopping-carts/${cart.body as string}/products`, "POST", { productId, amount })).status === 200;
        if (!added) continue;
        const r = await call(`${t.url}/orders/checkout`, "POST", { cartId: cart.body, userId: user.body });
        const at = (Date.now() - t0) / 1000;
        if (r.status === 200) successes.push(at);
        else if (r.status !== 409) failures.push({ atS: at, status: r.status });
        const answer = r.body as { orderId?: string; total?: number };
        records.push({
          sfbench: "audit",
          kind: "checkout",
          user: user.body as string,
          credits: 100_000,
          cart: cart.body as string,
          items,
          status: r.status,
          ...(r.status === 200 ? { orderId: answer.orderId!, total: answer.total! } : {}),
        });
      }
    };
    const killAt = 3_000;
    const faults = (async () => {
      await new Promise((r) => setTimeout(r, killAt));
      const killed = await killNode(NAME, 1);
      await new Promise((r) => setTimeout(r, 2_000));
      const added = await addNode(NAME);
      return { killed, added };
    })();
    await Promise.all([...Array.from({ length: 6 }, worker), faults]);
    const { killed, added } = await faults;

    expect(records.length).toBeGreaterThan(20);
    expect(killed.index).toBe(1);
    expect(added.index).toBe(2);
    expect(targetPids(NAME).nodes.map((n) => n.alive)).toEqual([true, false, true]);
    expect(runningTarget(NAME)?.killed).toEqual([1]);
    // only requests the killed node held when it died can fail
    expect(failures.every((f) => f.status === 502)).toBe(true);
    expect(failures.length).toBeLessThanOrEqual(6);
    expect(successes.filter((s) => s > killAt / 1000 + 1).length).toBeGreaterThan(0);

    // the per-second series of this load, and the fault analysis over it
    const seconds = Math.ceil(runFor / 1000);
    const series: SeriesPoint[] = Array.from({ length: seconds }, (_, s) => ({
      t: s,
      successful: successes.filter((x) => Math.floor(x) === s).length,
      rejected: 0,
      errors: failures.filter((f) => Math.floor(f.atS) === s).length,
      dropped: 0,
      p50: null,
      p99: null,
    }));
    const fault = analyzeFault({ series, faultAtS: (killed.at - t0) / 1000, offeredRate: 0, failures, baselineSeconds: 2 });
    expect(fault.lost).toBe(0);
    expect(fault.failed).toBe(failures.length);

    const touched = new Set(records.flatMap((r) => r.items.map(([p]) => String(p))));
    const result = await audit({
      baseUrl: t.url,
      records,
      idOf: (p) => String(p),
      priceOf: (id) => productPrice(state.seed, Number(id.slice(id.lastIndexOf("-") + 1))),
      stockBefore: new Map([...touched].map((p) => [p, state.stock])),
    });
    expect(result.examples).toEqual([]);
    expect(result.total).toBe(0);
    expect(result.ambiguous).toBe(failures.length);
  });
});
