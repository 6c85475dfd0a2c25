/**
 * durability: "durable" in target.json means an answered request survives a
 * crash. The target is killed with SIGKILL (launcher and members at once) and
 * started again on the same PostgreSQL database: every answered write is
 * still there, the checked-out cart cannot be charged again, and the
 * co-purchase counts written behind the answer are there once they were.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { createDatabase, up } from "@sfbench/services";
import { builtBinary, call, eventually, shopper, spawnTarget, type Process } from "./helpers.ts";

const PORT = 18803;
let binary: string;
let databaseUrl: string;
let running: Process | undefined;
const logFile = join(mkdtempSync(join(tmpdir(), "protoactor-durability-")), "target.log");

beforeAll(async () => {
  binary = await builtBinary();
  await up(["postgres"]);
  databaseUrl = await createDatabase("protoactor_go_test_durability", { fresh: true });
});

afterEach(async () => {
  if (running) {
    running.signal("SIGKILL");
    await running.exited;
    running = undefined;
  }
});

describe("durability", () => {
  it("keeps every answered write across kill -9 and a restart on the same database", async () => {
    running = await spawnTarget(binary, { port: PORT, databaseUrl, logFile });
    let s = shopper(running.url);
    const a = await s.product(10, 100);
    const b = await s.product(3, 50);
    await s.ok("PATCH", `/products/${a}`, { price: 11, stock: 5 });
    const userId = await s.user(1000);
    await s.ok("PATCH", `/users/${userId}/credits/add`, { credits: 500 });
    const cartId = await s.cart({ [a]: 2, [b]: 4 });
    const open = await s.cart({ [b]: 1 });
    const checkout = await call(running.url, "POST", "/orders/checkout", { cartId, userId });
    expect(checkout.status).toBe(200);
    const { orderId, total } = checkout.body as { orderId: string; total: number };
    expect(total).toBe(11 * 2 + 3 * 4);
    // co-purchase counts are written after the answer: wait until they are visible, then give the writer its batch interval
    await eventually(async () => expect((await call(running!.url, "GET", `/products/${a}/freq-items`)).body).toEqual([b]));
    await new Promise((r) => setTimeout(r, 500));

    running.signal("SIGKILL");
    await running.exited;
    running = await spawnTarget(binary, { port: PORT, databaseUrl, logFile });
    s = shopper(running.url);

    expect(await s.ok("GET", `/products/${a}`)).toEqual({ id: a, price: 11, stock: 105 - 2 });
    expect(await s.ok("GET", `/products/${b}`)).toEqual({ id: b, price: 3, stock: 50 - 4 });
    expect(await s.ok("GET", `/users/${userId}`)).toEqual({ id: userId, credits: 1500 - total });
    expect(await s.ok("GET", `/orders/${orderId}`)).toEqual({ id: orderId, cartId, userId, status: "completed", total });
    expect(await s.ok("GET", `/shopping-carts/${cartId}`)).toMatchObject({ checkedOut: true });
    expect(await s.ok("GET", `/shopping-carts/${open}`)).toEqual({ id: open, items: [{ productId: b, amount: 1 }], checkedOut: false });
    expect(await s.ok("GET", `/products/${b}/freq-items`)).toEqual([a]);
    // a cart is charged at most once, also after a crash
    const again = await call(running.url, "POST", "/orders/checkout", { cartId, userId });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ error: "cart-checked-out" });
  });

  it("settles checkouts a kill -9 interrupted: after the restart every cart is either charged in full or not at all", async () => {
    running = await spawnTarget(binary, { port: PORT, databaseUrl, logFile });
    let s = shopper(running.url);
    const prices = [3, 5, 7, 11];
    const products = await Promise.all(prices.map((price) => s.product(price, 1_000_000)));
    const buyers = await Promise.all(
      Array.from({ length: 120 }, async (_, i) => {
        const userId = await s.user(10_000);
        const items = { [products[i % 4]!]: 1 + (i % 3), [products[(i + 1) % 4]!]: 2 };
        const cartId = await s.cart(items);
        const total = Object.entries(items).reduce((sum, [p, amount]) => sum + prices[products.indexOf(p)]! * amount, 0);
        return { userId, cartId, items, total };
      }),
    );
    // all checkouts at once; the target dies as soon as the first one is answered
    const answers = buyers.map((b) => call(running!.url, "POST", "/orders/checkout", { cartId: b.cartId, userId: b.userId }).catch(() => undefined));
    await Promise.race(answers);
    running.signal("SIGKILL");
    const settled = await Promise.all(answers);
    await running.exited;
    console.log(`answers before the crash: ${settled.filter((a) => a?.status === 200).length} 200s, ${settled.filter((a) => a === undefined).length} none`);

    running = await spawnTarget(binary, { port: PORT, databaseUrl, logFile });
    s = shopper(running.url);
    const sold = new Map<string, number>();
    let charged = 0;
    for (const [i, b] of buyers.entries()) {
      const cart = (await s.ok("GET", `/shopping-carts/${b.cartId}`)) as { checkedOut: boolean };
      const user = (await s.ok("GET", `/users/${b.userId}`)) as { credits: number };
      // an answered 200 stays checked out; whatever was not answered is all or nothing
      if (settled[i]?.status === 200) expect(cart.checkedOut).toBe(true);
      expect(user.credits).toBe(cart.checkedOut ? 10_000 - b.total : 10_000);
      if (cart.checkedOut) {
        charged++;
        for (const [p, amount] of Object.entries(b.items)) sold.set(p, (sold.get(p) ?? 0) + amount);
      }
    }
    for (const p of products) expect(await s.ok("GET", `/products/${p}`)).toMatchObject({ stock: 1_000_000 - (sold.get(p) ?? 0) });
    const interrupted = /settled checkouts interrupted by a crash.*carts=(\d+)/.exec(running.log());
    console.log(`${charged} of ${buyers.length} checkouts completed before the crash; ${interrupted?.[1] ?? 0} interrupted ones settled at restart`);
  });
});
