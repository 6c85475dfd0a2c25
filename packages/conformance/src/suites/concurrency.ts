/**
 * Concurrency (SPEC 2.1, 2.3): atomic stock, charging once, lost updates.
 * Requests are fired together with Promise.all over separate connections.
 */
import { Actions, pool, runPrefix } from "../actions.ts";
import { expectEqual, expectStatus, fail, type Check } from "../check.ts";
import type { Client } from "../client.ts";

async function scarceStock(c: Client) {
  const a = new Actions(c);
  const product = await a.createProduct({ price: 1, stock: 10 });
  const buyers = await pool(
    Array.from({ length: 50 }, (_, i) => i),
    8,
    async () => {
      const user = await a.createUser(100);
      return { user, cart: await a.cartWith([[product, 1]]) };
    },
  );
  const answers = await Promise.all(buyers.map((b) => a.checkoutRaw(b.cart, b.user, c.inLine(buyers.length))));
  return { a, product, buyers, statuses: answers.map((r) => r.status) };
}

export function concurrency(opts: { quietMs: number }): Check[] {
  let scarce: ReturnType<typeof scarceStock> | undefined;
  const oneProduct = (c: Client) => (scarce ??= scarceStock(c)).catch((e: Error) => fail(`setup failed: ${e.message}`));
  return [
    {
      id: "no-5xx",
      title: "50 concurrent checkouts on a product with stock 10 answer only 200 or 409",
      run: async (c) => {
        const { statuses } = await oneProduct(c);
        const bad = statuses.filter((s) => s !== 200 && s !== 409);
        if (bad.length) fail(`statuses other than 200/409: ${bad.join(", ")}`);
      },
    },
    {
      id: "exactly-stock-succeed",
      title: "exactly 10 of 50 concurrent checkouts on stock 10 succeed",
      run: async (c) => expectEqual((await oneProduct(c)).statuses.filter((s) => s === 200).length, 10, "successful checkouts"),
    },
    {
      id: "stock-ends-at-zero",
      title: "the stock ends at 0, never below",
      run: async (c) => {
        const { a, product } = await oneProduct(c);
        expectEqual((await a.product(product)).stock, 0, "stock");
      },
    },
    {
      id: "credits-match",
      title: "exactly the buyers that got 200 paid, each once",
      run: async (c) => {
        const { a, buyers, statuses } = await oneProduct(c);
        const credits = await pool(buyers, 8, async (b) => (await a.user(b.user)).credits);
        const wrong = credits.map((cr, i) => [cr, statuses[i] === 200 ? 99 : 100] as const).filter(([cr, want]) => cr !== want);
        if (wrong.length) fail(`${wrong.length} users have wrong credits, e.g. ${wrong[0]![0]} instead of ${wrong[0]![1]}`);
      },
    },
    {
      id: "cart-charged-once",
      title: "10 concurrent checkouts of one cart succeed once and charge once",
      run: async (c) => {
        const a = new Actions(c);
        const product = await a.createProduct({ price: 4, stock: 100 });
        const user = await a.createUser(1000);
        const cart = await a.cartWith([[product, 2]]);
        const statuses = (await Promise.all(Array.from({ length: 10 }, () => a.checkoutRaw(cart, user, c.inLine(10))))).map((r) => r.status);
        expectEqual(statuses.filter((s) => s === 200).length, 1, "successful checkouts of the same cart");
        expectEqual((await a.user(user)).credits, 992, "credits (1000 - 8)");
        expectEqual((await a.product(product)).stock, 98, "stock (100 - 2)");
      },
    },
    {
      id: "credit-additions-atomic",
      title: "20 concurrent credit additions are all counted",
      run: async (c) => {
        const a = new Actions(c);
        const user = await a.createUser(0);
        const res = await Promise.all(Array.from({ length: 20 }, () => c.patch(`/users/${user}/credits/add`, { credits: 5 }, c.inLine(20))));
        res.forEach((r) => expectStatus(r, 200, "PATCH /users/{id}/credits/add"));
        expectEqual((await a.user(user)).credits, 100, "credits after 20 x 5");
      },
    },
    {
      id: "stock-additions-atomic",
      title: "20 concurrent stock additions are all counted",
      run: async (c) => {
        const a = new Actions(c);
        const product = await a.createProduct({ price: 1, stock: 0 });
        const res = await Promise.all(Array.from({ length: 20 }, () => c.patch(`/products/${product}`, { stock: 3 }, c.inLine(20))));
        res.forEach((r) => expectStatus(r, 200, "PATCH /products/{id}"));
        expectEqual((await a.product(product)).stock, 60, "stock after 20 x 3");
      },
    },
    {
      id: "co-purchase-counts-exact",
      title: "co-purchase counts equal the completed orders once quiet (20 concurrent orders count 20)",
      run: async (c) => {
        // y bought with u 21 times and w 19 times in sequence, and with z 20 times concurrently.
        // Ids sort w < z < u, so top 2 = {u, z} only if z >= 20 and top 1 = {u} only if z <= 20.
        const a = new Actions(c);
        const p = runPrefix();
        const [y, w, z, u] = [`${p}-y`, `${p}-w1`, `${p}-w2`, `${p}-w3`];
        for (const id of [y, w, z, u]) await a.upsertProduct(id, { price: 1, stock: 1000 });
        const user = await a.createUser(1_000_000);
        await a.buyTogether(user, [y, u], 21);
        await a.buyTogether(user, [y, w], 19);
        const carts = await pool(
          Array.from({ length: 20 }, (_, i) => i),
          8,
          () =>
            a.cartWith([
              [y, 1],
              [z, 1],
            ]),
        );
        const statuses = (await Promise.all(carts.map((cart) => a.checkoutRaw(cart, user, c.inLine(carts.length))))).map((r) => r.status);
        expectEqual(statuses.filter((s) => s === 200).length, 20, "successful concurrent checkouts");
        const names = new Map([
          [y, "y"],
          [w, "w"],
          [z, "z"],
          [u, "u"],
        ]);
        const deadline = performance.now() + opts.quietMs;
        let top2: string[] = [];
        while (performance.now() < deadline) {
          top2 = await a.freqItems(y, 2);
          if (top2.includes(z)) break;
          await new Promise((r) => setTimeout(r, 100));
        }
        if (!top2.includes(z))
          fail(`count[y][z] < 20 after ${opts.quietMs} ms: top 2 of y is {${top2.map((id) => names.get(id)).join(", ")}}, expected {u, z}`);
        const top1 = await a.freqItems(y, 1);
        if (top1[0] !== u || top1.length !== 1) fail(`count[y][z] > 20: top 1 of y is {${top1.map((id) => names.get(id)).join(", ")}}, expected {u}`);
        const zTop = await a.freqItems(z, 1);
        if (zTop[0] !== y) fail(`count[z][y] wrong: top 1 of z is {${zTop.map((id) => names.get(id)).join(", ")}}, expected {y}`);
      },
    },
  ];
}
