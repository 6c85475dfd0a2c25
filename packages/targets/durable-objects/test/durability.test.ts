/**
 * durability: durable means state survives kill -9 of every process of the
 * target (launcher and workerd) and a restart on the same SFBENCH_DATA_DIR
 * (that every answered write does is @sfbench/target-suite's check). What is
 * the objects' own: a checkout the crash cut off is finished or undone by its
 * cart once the cart is used again, and a fresh data directory starts empty.
 */
import { afterAll, describe, expect, it } from "vitest";
import { eventually, shopper } from "@sfbench/target-suite";
import { crash, start, type RunningTarget } from "./helpers.ts";

const PORT = 18712;
let t: RunningTarget | undefined;

afterAll(async () => {
  await t?.stop();
});

describe("durability", () => {
  it("finishes or undoes every checkout a kill -9 interrupted, once the carts are used again", { timeout: 120_000 }, async () => {
    await t?.stop();
    t = await start(PORT);
    const s = shopper(t.url);
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
    const s = shopper(t.url);
    const p = await s.product(1, 1);
    await t.stop();
    t = await start(PORT); // keepData false: the provider clears SFBENCH_DATA_DIR
    expect((await t.call("GET", `/products/${p}`)).status).toBe(404);
  });
});
