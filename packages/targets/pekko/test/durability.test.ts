/**
 * durability: "durable" means an answered request survives a crash of the
 * whole target: every member killed with kill -9 (its PostgreSQL keeps
 * running: it is the target's storage) and started again on the same
 * database. Entities replay their journals; the checked-out cart cannot be
 * charged again; the co-purchase counts written behind the answer are there.
 */
import { afterAll, describe, expect, it } from "vitest";
import { killTarget, restartTarget, startTarget, stopTarget } from "@sfbench/provider-local";
import { call, eventually, freePort, shopper, TARGET } from "./helpers.ts";

afterAll(async () => {
  await stopTarget(TARGET);
});

describe("kill -9 of the whole target", () => {
  it("keeps every answered write across a restart on the same database", { timeout: 600_000 }, async () => {
    await stopTarget(TARGET);
    const first = await startTarget(TARGET, { port: await freePort() });
    const s = shopper(first.url);
    const a = await s.product(10, 100);
    const b = await s.product(3, 50);
    await s.ok("PATCH", `/products/${a}`, { price: 11, stock: 5 });
    const userId = await s.user(1000);
    await s.ok("PATCH", `/users/${userId}/credits/add`, { credits: 500 });
    const cartId = await s.cart({ [a]: 2, [b]: 4 });
    const open = await s.cart({ [b]: 1 });
    const checkout = await call(first.url, "POST", "/orders/checkout", { cartId, userId });
    expect(checkout.status).toBe(200);
    const { orderId, total } = checkout.body as { orderId: string; total: number };
    expect(total).toBe(11 * 2 + 3 * 4);
    await eventually(async () => expect((await call(first.url, "GET", `/products/${a}/freq-items`)).body).toEqual([b]));

    await killTarget(TARGET);
    await restartTarget(TARGET);

    expect(await s.ok("GET", `/products/${a}`)).toEqual({ id: a, price: 11, stock: 105 - 2 });
    expect(await s.ok("GET", `/products/${b}`)).toEqual({ id: b, price: 3, stock: 50 - 4 });
    expect(await s.ok("GET", `/users/${userId}`)).toEqual({ id: userId, credits: 1500 - total });
    expect(await s.ok("GET", `/orders/${orderId}`)).toEqual({ id: orderId, cartId, userId, status: "completed", total });
    expect(await s.ok("GET", `/shopping-carts/${cartId}`)).toMatchObject({ checkedOut: true });
    expect(await s.ok("GET", `/shopping-carts/${open}`)).toEqual({ id: open, items: [{ productId: b, amount: 1 }], checkedOut: false });
    expect(await s.ok("GET", `/products/${b}/freq-items`)).toEqual([a]);
    const again = await call(first.url, "POST", "/orders/checkout", { cartId, userId });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ error: "cart-checked-out" });
  });
});
