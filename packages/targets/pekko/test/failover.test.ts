/**
 * Two cluster members, one killed with kill -9 in the middle of checkouts
 * and started again (what the fault experiment does): the split-brain
 * resolver downs the dead member, its shards move to the survivor and replay
 * from the journal, and the checkout sagas it cut off resume there. Nothing
 * answered is lost, every cart is charged in full or not at all, and reads
 * are answered while shards move back to the returned member.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { killNode, restartNode, startTarget, stopTarget, type StartedTarget } from "@sfbench/provider-local";
import { call, eventually, shopper } from "@sfbench/target-suite";
import { TARGET } from "./helpers.ts";

let target: StartedTarget;

beforeAll(async () => {
  await stopTarget(TARGET);
  target = await startTarget(TARGET, { port: "free", nodes: 2 });
});
afterAll(async () => {
  await stopTarget(TARGET);
});

describe("kill -9 of one member", () => {
  it("loses no answered write, settles the checkouts it cut off, and takes the member back", { timeout: 600_000 }, async () => {
    const s = shopper(target.url);
    const prices = [3, 5, 7, 11, 13, 17];
    const stock = 1_000_000;
    // enough products that both members own some of them
    const products = await Promise.all(prices.map((price) => s.product(price, stock)));
    const buyers = await Promise.all(
      Array.from({ length: 60 }, async (_, i) => {
        const userId = await s.user(10_000);
        const items = { [products[i % 6]!]: 1 + (i % 3), [products[(i + 1) % 6]!]: 2 };
        const cartId = await s.cart(items);
        const total = Object.entries(items).reduce((sum, [p, amount]) => sum + prices[products.indexOf(p)]! * amount, 0);
        return { userId, cartId, items, total };
      }),
    );

    // all checkouts at once; node 1 dies as soon as the first one is answered
    const answers = buyers.map((b) => call(target.url, "POST", "/orders/checkout", { cartId: b.cartId, userId: b.userId }).catch(() => undefined));
    await Promise.race(answers);
    const killed = await killNode(TARGET, 1);
    expect(killed.goneAt).toBeDefined();
    const settled = await Promise.all(answers);
    const statuses = settled.map((a) => a?.status ?? "none");
    console.log(
      `checkout answers around the kill: ${JSON.stringify(Object.fromEntries([...new Set(statuses)].map((st) => [st, statuses.filter((x) => x === st).length])))}`,
    );

    /** Every cart is charged in full or not at all, the stock matches the charged carts, an answered 200 stays charged. */
    const audit = async () => {
      const sold = new Map<string, number>();
      for (const [i, b] of buyers.entries()) {
        const cart = (await s.ok("GET", `/shopping-carts/${b.cartId}`)) as { checkedOut: boolean };
        const user = (await s.ok("GET", `/users/${b.userId}`)) as { credits: number };
        if (settled[i]?.status === 200) expect(cart.checkedOut).toBe(true);
        expect(user.credits).toBe(cart.checkedOut ? 10_000 - b.total : 10_000);
        if (cart.checkedOut) for (const [p, amount] of Object.entries(b.items)) sold.set(p, (sold.get(p) ?? 0) + amount);
      }
      for (const p of products) expect(await s.ok("GET", `/products/${p}`)).toMatchObject({ stock: stock - (sold.get(p) ?? 0) });
    };
    // the survivor takes the dead member's shards; sagas it cut off finish there (or are undone)
    await eventually(audit, 120_000);

    // the carts not answered 200 can be checked out now, on one member
    for (const [i, b] of buyers.entries()) {
      if (settled[i]?.status === 200) continue;
      const again = await call(target.url, "POST", "/orders/checkout", { cartId: b.cartId, userId: b.userId });
      expect([200, 409]).toContain(again.status);
      if (again.status === 409) expect(again.body).toMatchObject({ error: "cart-checked-out" });
    }

    await restartNode(TARGET, 1);
    // Sharding moves shards back to the returned member, a few each rebalance interval (10 s). A message
    // that reaches a shard while it is handed off is dropped by Pekko (to keep the order of what was
    // buffered) and the gateway asks a read again: read with 8 readers for a whole interval, and every
    // read is answered, with what was charged.
    const until = Date.now() + 10_000;
    await Promise.all(
      Array.from({ length: 8 }, async (_, reader) => {
        for (let k = reader; k < buyers.length || Date.now() < until; k += 8) {
          const b = buyers[k % buyers.length]!;
          expect(await s.ok("GET", `/shopping-carts/${b.cartId}`)).toMatchObject({ checkedOut: true });
          expect(await s.ok("GET", `/users/${b.userId}`)).toEqual({ id: b.userId, credits: 10_000 - b.total });
        }
      }),
    );
    const sold = new Map<string, number>();
    for (const b of buyers) for (const [p, amount] of Object.entries(b.items)) sold.set(p, (sold.get(p) ?? 0) + amount);
    for (const [i, p] of products.entries()) expect(await s.ok("GET", `/products/${p}`)).toEqual({ id: p, price: prices[i], stock: stock - sold.get(p)! });
    // both members answer once the restarted one is back
    const cart = await s.cart({ [products[0]!]: 1, [products[5]!]: 1 });
    const user = await s.user(100);
    expect((await call(target.url, "POST", "/orders/checkout", { cartId: cart, userId: user })).body).toMatchObject({ total: 3 + 17 });
  });
});
