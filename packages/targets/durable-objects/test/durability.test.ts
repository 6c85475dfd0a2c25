/**
 * durability: durable means state survives kill -9 of every process of the
 * target (launcher and workerd) and a restart on the same SFBENCH_DATA_DIR.
 */
import { afterAll, describe, expect, it } from "vitest";
import { CheckoutResult, FreqItems, Order } from "@sfbench/core";
import { crash, eventually, shopper, start, type RunningTarget } from "./helpers.ts";

const PORT = 18712;
let t: RunningTarget | undefined;

afterAll(async () => {
  await t?.stop();
});

describe("durability", () => {
  it("keeps every answered write through kill -9 of launcher and workerd and a restart", async () => {
    t = await start(PORT);
    const s = shopper(t);
    const p = await s.product(3, 10);
    const q = await s.product(4, 10);
    await s.ok("PATCH", `/products/${p}`, { stock: 5 });
    const u = await s.user(100);
    await s.ok("PATCH", `/users/${u}/credits/add`, { credits: 50 });
    const c = await s.cart({ [p]: 2, [q]: 1 });
    const { orderId, total } = CheckoutResult.parse((await s.checkout(c, u)).body);
    const open = await s.cart({ [q]: 3 });
    await eventually(async () => FreqItems.parse((await t!.call("GET", `/products/${p}/freq-items`)).body).includes(q));

    await crash(t);
    expect((await fetch(`${t.url}/health`).catch(() => undefined))?.status).toBeUndefined(); // nothing answers

    t = await start(PORT, { keepData: true });
    expect((await t.call("GET", `/products/${p}`)).body).toEqual({ id: p, price: 3, stock: 13 });
    expect((await t.call("GET", `/products/${q}`)).body).toEqual({ id: q, price: 4, stock: 9 });
    expect((await t.call("GET", `/users/${u}`)).body).toEqual({ id: u, credits: 150 - total });
    expect(Order.parse((await t.call("GET", `/orders/${orderId}`)).body)).toEqual({ id: orderId, cartId: c, userId: u, status: "completed", total: 10 });
    expect((await t.call("GET", `/shopping-carts/${c}`)).body).toMatchObject({ checkedOut: true });
    expect((await t.call("GET", `/products/${p}/freq-items`)).body).toEqual([q]);
    // the cart that was open goes on where it was
    expect((await s.checkout(open, u)).status).toBe(200);
    expect((await t.call("GET", `/products/${q}`)).body).toMatchObject({ stock: 6 });
  });

  it("finishes or undoes every checkout a kill -9 interrupted, once the carts are used again", { timeout: 120_000 }, async () => {
    await t?.stop();
    t = await start(PORT);
    const s = shopper(t);
    const buyers = await Promise.all(
      Array.from({ length: 20 }, async () => {
        const p = await s.product(2, 100);
        const q = await s.product(3, 100);
        return { p, q, u: await s.user(1000), c: await s.cart({ [p]: 1, [q]: 2 }) };
      }),
    );
    const answers = buyers.map(({ c, u }) => s.checkout(c, u).catch(() => undefined));
    // crash once a few have answered: the others are on their way, at some step
    let answered = 0;
    await new Promise<void>((resolve) => answers.forEach((a) => void a.then(() => ++answered === 3 && resolve())));
    await crash(t);
    await Promise.all(answers);

    t = await start(PORT, { keepData: true });
    let completed = 0;
    for (const { p, q, u, c } of buyers) {
      const cart = (await t.call("GET", `/shopping-carts/${c}`)).body as { checkedOut: boolean };
      const stock = async () => [
        ((await t!.call("GET", `/products/${p}`)).body as { stock: number }).stock,
        ((await t!.call("GET", `/products/${q}`)).body as { stock: number }).stock,
      ];
      const credits = async () => ((await t!.call("GET", `/users/${u}`)).body as { credits: number }).credits;
      if (cart.checkedOut) {
        completed++;
        expect(await stock()).toEqual([99, 98]);
        expect(await credits()).toBe(1000 - 8);
        await eventually(async () => (await t!.call("GET", `/products/${p}/freq-items`)).text === JSON.stringify([q]));
      } else {
        expect(await stock()).toEqual([100, 100]);
        expect(await credits()).toBe(1000);
        expect((await s.checkout(c, u)).status).toBe(200); // and the cart still works
      }
    }
    const resumed = t
      .log()
      .split("\n")
      .filter((l) => l.includes("resuming checkout")).length;
    console.log(`${completed} of 20 checkouts had completed at the crash; ${resumed} were resumed by their cart`);
  });

  it("starts empty on a fresh data directory", async () => {
    await t?.stop();
    t = await start(PORT);
    const s = shopper(t);
    const p = await s.product(1, 1);
    await t.stop();
    t = await start(PORT); // keepData false: the provider clears SFBENCH_DATA_DIR
    expect((await t.call("GET", `/products/${p}`)).status).toBe(404);
  });
});
