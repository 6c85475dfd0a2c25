/**
 * durability: "durable" in target.json means an answered request survives a
 * crash (that every answered write survives kill -9 of the whole target is
 * @sfbench/target-suite's check). What is Proto.Actor's own: checkouts cut
 * off by the crash are settled by their cart grains at restart, all or
 * nothing.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { createDatabase, up } from "@sfbench/services";
import { call, shopper } from "@sfbench/target-suite";
import { builtBinary, spawnTarget, type Process } from "./helpers.ts";

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
