/**
 * What the conformance suite does not reach: races between adding to a cart
 * and checking it out, many carts over shared products, and the recursive
 * freq-items traversal through product objects on cycles and deep chains.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Cart, CheckoutResult, ErrorBody, FreqItems, Product, User } from "@sfbench/core";
import { eventually, shopper } from "@sfbench/target-suite";
import { start, type RunningTarget } from "./helpers.ts";

let t: RunningTarget;
let s: ReturnType<typeof shopper>;

beforeAll(async () => {
  t = await start(18711);
  s = shopper(t.url);
});
afterAll(async () => {
  await t?.stop();
});

const product = async (id: string) => Product.parse((await t.call("GET", `/products/${id}`)).body);
const user = async (id: string) => User.parse((await t.call("GET", `/users/${id}`)).body);
const cart = async (id: string) => Cart.parse((await t.call("GET", `/shopping-carts/${id}`)).body);

async function freq(id: string, query = ""): Promise<string[]> {
  const answer = await t.call("GET", `/products/${encodeURIComponent(id)}/freq-items${query}`);
  expect(answer.status, answer.text).toBe(200);
  return FreqItems.parse(answer.body).sort();
}

describe("checkout across product, user, cart and order objects", () => {
  it("charges exactly the items added before the checkout when adds race with it", async () => {
    for (let round = 0; round < 5; round++) {
      const first = await s.product(1, 100);
      const raced = await s.product(1, 100);
      const u = await s.user(1000);
      const c = await s.cart({ [first]: 1 });
      const adds = Array.from({ length: 10 }, () => t.call("POST", `/shopping-carts/${c}/products`, { productId: raced, amount: 1 }));
      const [answer, ...added] = await Promise.all([s.checkout(c, u), ...adds]);
      expect(answer.status).toBe(200);
      const inCart = (await cart(c)).items.find((i) => i.productId === raced)?.amount ?? 0;
      expect(added.filter((a) => a.status === 200)).toHaveLength(inCart);
      expect(added.filter((a) => a.status === 409 && ErrorBody.parse(a.body).error === "cart-checked-out")).toHaveLength(10 - inCart);
      expect((await product(raced)).stock).toBe(100 - inCart);
      expect(CheckoutResult.parse(answer.body).total).toBe(1 + inCart);
      expect((await user(u)).credits).toBe(1000 - 1 - inCart);
    }
  });

  it("never deadlocks or fails when 40 carts share products added in different orders", async () => {
    const products = await Promise.all(Array.from({ length: 6 }, () => s.product(1, 1_000_000)));
    const buyers = await Promise.all(
      Array.from({ length: 40 }, async (_, i) => {
        const items = Object.fromEntries([0, 1, 2, 3].map((k) => [products[(i + k) % 6]!, 1 + (k % 2)]));
        return { u: await s.user(1000), c: await s.cart(items) };
      }),
    );
    const answers = await Promise.all(buyers.map(({ u, c }) => s.checkout(c, u)));
    expect(answers.map((a) => a.status)).toEqual(answers.map(() => 200));
    const stocks = await Promise.all(products.map((p) => product(p).then((x) => x.stock)));
    expect(stocks.reduce((a, b) => a + b, 0)).toBe(6 * 1_000_000 - 40 * 6);
  });

  it("puts back the stock of every product when the user cannot pay, and the cart can be checked out later", async () => {
    const a = await s.product(10, 5);
    const b = await s.product(20, 5);
    const u = await s.user(49);
    const c = await s.cart({ [a]: 1, [b]: 2 });
    const refused = await s.checkout(c, u);
    expect(refused.status).toBe(409);
    expect(ErrorBody.parse(refused.body).error).toBe("insufficient-credits");
    expect([(await product(a)).stock, (await product(b)).stock]).toEqual([5, 5]);
    await s.ok("PATCH", `/users/${u}/credits/add`, { credits: 1 });
    expect((await s.checkout(c, u)).status).toBe(200);
    expect([(await product(a)).stock, (await product(b)).stock, (await user(u)).credits]).toEqual([4, 3, 0]);
  });

  it("counts the co-purchases of 30 concurrent orders, in both directions, and ranks by them", async () => {
    const ids = ["burst-a", "burst-b", "burst-c"];
    for (const id of ids) await s.namedProduct(id);
    await Promise.all(Array.from({ length: 30 }, () => s.buy(ids)));
    // the counts are written after the answers; top=1 of burst-a sees 30 with b and with c, tie broken by id
    await eventually(async () => (await freq("burst-a", "?top=1")).join() === "burst-b");
    await s.namedProduct("burst-d");
    await s.buy(["burst-a", "burst-c"]); // c now leads a's counts: 31 against 30
    await eventually(async () => (await freq("burst-a", "?top=1")).join() === "burst-c");
    expect(await freq("burst-b", "?top=2")).toEqual(["burst-a", "burst-c"]);
  });
});

describe("freq-items: a recursive traversal through product objects", () => {
  beforeAll(async () => {
    // a chain x1 - x2 - ... - x21, and a cycle c1 - c2 - c3 - c1
    const chain = Array.from({ length: 21 }, (_, i) => `x${i + 1}`);
    for (const id of [...chain, "c1", "c2", "c3"]) await s.namedProduct(id);
    for (let i = 0; i + 1 < chain.length; i++) await s.buy([chain[i]!, chain[i + 1]!]);
    for (const pair of [
      ["c1", "c2"],
      ["c2", "c3"],
      ["c3", "c1"],
    ])
      await s.buy(pair);
    await eventually(async () => (await freq("x20")).length === 2 && (await freq("c3")).length === 2);
  });

  it("follows a chain 20 calls deep", async () => {
    expect(await freq("x1", "?top=1&depth=1")).toEqual(["x2"]);
    expect(await freq("x1", "?top=1&depth=20")).toEqual(Array.from({ length: 20 }, (_, i) => `x${i + 2}`).sort());
  });

  it("terminates on a cycle, visited by several branches at once, and never answers the root", async () => {
    expect(await freq("c1", "?top=2&depth=20")).toEqual(["c2", "c3"]);
    expect(await freq("c1", "?top=1&depth=20")).toEqual(["c2", "c3"]);
    const answers = await Promise.all(["c1", "c2", "c3"].map((p) => freq(p, "?top=3&depth=20")));
    expect(answers).toEqual([
      ["c2", "c3"],
      ["c1", "c3"],
      ["c1", "c2"],
    ]);
  });

  it("answers 404 for an unknown root and [] for a product never bought with another", async () => {
    const missing = await t.call("GET", "/products/never-created/freq-items?top=3&depth=3");
    expect(missing.status).toBe(404);
    expect(ErrorBody.parse(missing.body).error).toBe("not-found");
    await s.namedProduct("lonely");
    expect(await freq("lonely", "?top=5&depth=5")).toEqual([]);
  });
});
