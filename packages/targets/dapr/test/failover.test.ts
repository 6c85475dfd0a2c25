/**
 * Two nodes (app + daprd each, placement on node 0), node 1 killed with
 * kill -9 in the middle of checkouts and started again (what the fault
 * experiment does): placement drops the dead sidecar from its table, the
 * actors it hosted activate on node 0 from the state store at their next call,
 * and a cart whose checkout was cut off settles it when it activates again.
 * Nothing answered is lost, and every cart is charged in full or not at all.
 * Node 1 dies a second time after it took its share of the actors back and
 * wrote them: node 0 answers for them from the store, not from what it kept
 * of them before they left.
 * The calls node 1 had in flight when it died keep running on node 0 after
 * daprd gave them up: the stock audit is what catches one overlapping the
 * next call of the same actor (README, "daprd's turn ends with its caller").
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { killNode, restartNode, startTarget, stopTarget, type StartedTarget } from "@sfbench/provider-local";
import { call, checkoutsAcrossAKill, eventually, shopper } from "@sfbench/target-suite";
import { TARGET } from "./helpers.ts";

const PORT = 18953;
let target: StartedTarget;

beforeAll(async () => {
  await stopTarget(TARGET);
  target = await startTarget(TARGET, { port: PORT, nodes: 2 });
});
afterAll(async () => {
  await stopTarget(TARGET);
});

describe("kill -9 of one node", () => {
  it("loses no answered write, settles the checkouts it cut off, and takes the node back", { timeout: 600_000 }, async () => {
    const s = shopper(target.url);
    // node 0 activates the dead node's actors from the state store; a cart cut off settles when it is read again
    const { prices, stock, credits, products, buyers, sold } = await checkoutsAcrossAKill(target.url, async () => {
      expect((await killNode(TARGET, 1)).goneAt).toBeDefined();
    });

    await restartNode(TARGET, 1);
    for (const b of buyers) expect(await s.ok("GET", `/shopping-carts/${b.cartId}`)).toMatchObject({ checkedOut: true });
    for (const b of buyers) expect(await s.ok("GET", `/users/${b.userId}`)).toEqual({ id: b.userId, credits: credits - b.total });
    for (const [i, p] of products.entries()) expect(await s.ok("GET", `/products/${p}`)).toEqual({ id: p, price: prices[i], stock: stock - sold.get(p)! });
    // both nodes host actors again once the restarted one is back
    const cart = await s.cart({ [products[0]!]: 1, [products[5]!]: 1 });
    const user = await s.user(100);
    expect((await call(target.url, "POST", "/orders/checkout", { cartId: cart, userId: user })).body).toMatchObject({ total: 3 + 17 });
    sold.set(products[0]!, sold.get(products[0]!)! + 1);
    sold.set(products[5]!, sold.get(products[5]!)! + 1);

    // the actors that moved to the restarted node are written there, then come back to node 0 when it dies again:
    // node 0 must not answer from what it kept before they left (its objects read the store again)
    const everything = Object.fromEntries(products.map((p) => [p, 1]));
    const moved = await s.cart(everything);
    expect((await call(target.url, "POST", "/orders/checkout", { cartId: moved, userId: await s.user(1_000) })).status).toBe(200);
    for (const p of products) sold.set(p, sold.get(p)! + 1);
    await killNode(TARGET, 1);
    await eventually(async () => {
      for (const [i, p] of products.entries()) expect(await s.ok("GET", `/products/${p}`)).toEqual({ id: p, price: prices[i], stock: stock - sold.get(p)! });
    }, 120_000);
    const last = await s.cart(everything);
    expect((await call(target.url, "POST", "/orders/checkout", { cartId: last, userId: await s.user(1_000) })).status).toBe(200);
    for (const [i, p] of products.entries()) expect(await s.ok("GET", `/products/${p}`)).toEqual({ id: p, price: prices[i], stock: stock - sold.get(p)! - 1 });
  });
});
