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
import { afterAll, beforeAll, describe, expect, it } from "vitest";
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

afterAll(async () => {
  if (running) {
    running.signal("SIGKILL");
    await running.exited;
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
});
