import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Cart, CheckoutResult, ErrorBody, Order, Product, User } from "@sfbench/core";
import { shopper, startTarget, testDatabase, type RunningTarget } from "./helpers.ts";

let t: RunningTarget;
let s: ReturnType<typeof shopper>;

beforeAll(async () => {
  t = await startTarget(await testDatabase("checkout"));
  s = shopper(t);
});
afterAll(async () => {
  await t?.close();
});

const product = async (id: string) => Product.parse((await t.call("GET", `/products/${id}`)).body);
const user = async (id: string) => User.parse((await t.call("GET", `/users/${id}`)).body);
const cart = async (id: string) => Cart.parse((await t.call("GET", `/shopping-carts/${id}`)).body);

describe("checkout", () => {
  it("charges price times amount, retracts stock and records a completed order", async () => {
    const p1 = await s.product(7, 10);
    const p2 = await s.product(3, 10);
    const u = await s.user(100);
    const c = await s.cart({ [p1]: 2 });
    await s.ok("POST", `/shopping-carts/${c}/products`, { productId: p2, amount: 1 });
    await s.ok("POST", `/shopping-carts/${c}/products`, { productId: p2, amount: 2 }); // accumulates to 3

    expect((await cart(c)).items.sort((a, b) => (a.productId < b.productId ? -1 : 1))).toEqual(
      [
        { productId: p1, amount: 2 },
        { productId: p2, amount: 3 },
      ].sort((a, b) => (a.productId < b.productId ? -1 : 1)),
    );

    const answer = await s.checkout(c, u);
    expect(answer.status).toBe(200);
    const result = CheckoutResult.parse(answer.body);
    expect(result.total).toBe(7 * 2 + 3 * 3);

    expect((await product(p1)).stock).toBe(8);
    expect((await product(p2)).stock).toBe(7);
    expect((await user(u)).credits).toBe(100 - 23);
    expect((await cart(c)).checkedOut).toBe(true);
    const order = Order.parse((await t.call("GET", `/orders/${result.orderId}`)).body);
    expect(order).toEqual({ id: result.orderId, cartId: c, userId: u, status: "completed", total: 23 });
  });

  it("answers 409 insufficient-stock and changes nothing when one product lacks stock", async () => {
    const rich = await s.product(1, 100);
    const scarce = await s.product(1, 1);
    const u = await s.user(1000);
    const c = await s.cart({ [rich]: 5, [scarce]: 2 });
    const answer = await s.checkout(c, u);
    expect(answer.status).toBe(409);
    expect(ErrorBody.parse(answer.body).error).toBe("insufficient-stock");
    expect((await product(rich)).stock).toBe(100);
    expect((await product(scarce)).stock).toBe(1);
    expect((await user(u)).credits).toBe(1000);
    expect((await cart(c)).checkedOut).toBe(false);
  });

  it("answers 409 insufficient-credits and changes nothing when the user cannot pay", async () => {
    const p = await s.product(50, 10);
    const u = await s.user(99);
    const c = await s.cart({ [p]: 2 });
    const answer = await s.checkout(c, u);
    expect(answer.status).toBe(409);
    expect(ErrorBody.parse(answer.body).error).toBe("insufficient-credits");
    expect((await product(p)).stock).toBe(10);
    expect((await user(u)).credits).toBe(99);
    expect((await cart(c)).checkedOut).toBe(false);

    // after adding credits the same cart goes through
    await s.ok("PATCH", `/users/${u}/credits/add`, { credits: 1 });
    expect((await s.checkout(c, u)).status).toBe(200);
    expect((await user(u)).credits).toBe(0);
  });

  it("answers 409 empty-cart for a cart without items", async () => {
    const u = await s.user(10);
    const answer = await s.checkout(await s.cart(), u);
    expect(answer.status).toBe(409);
    expect(ErrorBody.parse(answer.body).error).toBe("empty-cart");
  });

  it("charges a cart once: a second checkout and adding to it answer 409 cart-checked-out", async () => {
    const p = await s.product(5, 10);
    const u = await s.user(100);
    const c = await s.cart({ [p]: 1 });
    expect((await s.checkout(c, u)).status).toBe(200);
    const again = await s.checkout(c, u);
    expect(again.status).toBe(409);
    expect(ErrorBody.parse(again.body).error).toBe("cart-checked-out");
    const add = await t.call("POST", `/shopping-carts/${c}/products`, { productId: p, amount: 1 });
    expect(add.status).toBe(409);
    expect(ErrorBody.parse(add.body).error).toBe("cart-checked-out");
    expect((await user(u)).credits).toBe(95);
    expect((await product(p)).stock).toBe(9);
  });

  it("charges a cart once even when it is checked out 10 times at once", async () => {
    const p = await s.product(5, 100);
    const u = await s.user(1000);
    const c = await s.cart({ [p]: 1 });
    const answers = await Promise.all(Array.from({ length: 10 }, () => s.checkout(c, u)));
    expect(answers.filter((a) => a.status === 200)).toHaveLength(1);
    expect(answers.filter((a) => a.status === 409 && (a.body as { error: string }).error === "cart-checked-out")).toHaveLength(9);
    expect((await user(u)).credits).toBe(995);
    expect((await product(p)).stock).toBe(99);
  });

  it("lets exactly 10 of 30 concurrent checkouts through when stock is 10", async () => {
    const hot = await s.product(2, 10);
    const other = await s.product(1, 1000);
    const buyers = await Promise.all(Array.from({ length: 30 }, async () => ({ u: await s.user(100), c: await s.cart({ [other]: 1, [hot]: 1 }) })));
    const answers = await Promise.all(buyers.map(({ u, c }) => s.checkout(c, u)));
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((x) => x === 200)).toHaveLength(10);
    expect(answers.filter((a) => a.status === 409 && (a.body as { error: string }).error === "insufficient-stock")).toHaveLength(20);
    expect((await product(hot)).stock).toBe(0);
    expect((await product(other)).stock).toBe(990);
    const credits = await Promise.all(buyers.map(({ u }) => user(u).then((x) => x.credits)));
    expect(credits.filter((x) => x === 97)).toHaveLength(10);
    expect(credits.filter((x) => x === 100)).toHaveLength(20);
  });

  it("never deadlocks or fails when many carts share products added in different orders", async () => {
    const products = await Promise.all(Array.from({ length: 6 }, () => s.product(1, 1_000_000)));
    const buyers = await Promise.all(
      Array.from({ length: 40 }, async (_, i) => {
        // every cart holds 4 of the 6 products, added in a rotated order
        const items = Object.fromEntries([0, 1, 2, 3].map((k) => [products[(i + k) % 6]!, 1 + (k % 2)]));
        return { u: await s.user(1000), c: await s.cart(items) };
      }),
    );
    const answers = await Promise.all(buyers.map(({ u, c }) => s.checkout(c, u)));
    expect(answers.map((a) => a.status)).toEqual(answers.map(() => 200));
    const stocks = await Promise.all(products.map((p) => product(p).then((x) => x.stock)));
    // each product is in 4 of every 6 rotations with amounts 1,2,1,2 -> 40 carts * 6 units / 6 products
    expect(stocks.reduce((a, b) => a + b, 0)).toBe(6 * 1_000_000 - 40 * 6);
  });

  it("charges exactly the items that were added before the checkout, when adds race with it", async () => {
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
      expect(added.filter((a) => a.status === 409)).toHaveLength(10 - inCart);
      expect((await product(raced)).stock).toBe(100 - inCart);
      expect(CheckoutResult.parse(answer.body).total).toBe(1 + inCart);
    }
  });

  it("answers 404 for an unknown cart, user, order or product", async () => {
    const u = await s.user(10);
    const p = await s.product(1, 1);
    const c = await s.cart({ [p]: 1 });
    const cases = [
      await s.checkout("no-such-cart", u),
      await s.checkout(c, "no-such-user"),
      await t.call("GET", "/orders/no-such-order"),
      await t.call("GET", "/products/no-such-product"),
      await t.call("GET", "/users/no-such-user"),
      await t.call("GET", "/shopping-carts/no-such-cart"),
      await t.call("PATCH", "/users/no-such-user/credits/add", { credits: 5 }),
      await t.call("POST", "/shopping-carts/no-such-cart/products", { productId: p, amount: 1 }),
      await t.call("POST", `/shopping-carts/${c}/products`, { productId: "no-such-product", amount: 1 }),
      await t.call("GET", "/products/no-such-product/freq-items"),
    ];
    for (const answer of cases) {
      expect(answer.status).toBe(404);
      expect(ErrorBody.parse(answer.body).error).toBe("not-found");
    }
    // the failed checkout with an unknown user changed nothing
    expect((await product(p)).stock).toBe(1);
    expect((await cart(c)).checkedOut).toBe(false);
  });
});

describe("products and users", () => {
  it("upserts with PATCH: creates a missing product, then sets the price and adds stock", async () => {
    const id = "patched-product";
    expect((await t.call("PATCH", `/products/${id}`, { price: 5, stock: 3 })).body).toBe(id);
    expect(await product(id)).toEqual({ id, price: 5, stock: 3 });
    await s.ok("PATCH", `/products/${id}`, { stock: 4 });
    expect(await product(id)).toEqual({ id, price: 5, stock: 7 });
    await s.ok("PATCH", `/products/${id}`, { price: 9 });
    expect(await product(id)).toEqual({ id, price: 9, stock: 7 });
  });

  it("keeps stock and credits beyond 2^31 as exact JSON numbers", async () => {
    const p = await s.product(1, 2 ** 31 - 1);
    await s.ok("PATCH", `/products/${p}`, { stock: 2 ** 31 - 1 });
    expect((await t.call("GET", `/products/${p}`)).body).toMatchObject({ stock: 2 ** 32 - 2 });
    const u = await s.user(2 ** 31 - 1);
    await s.ok("PATCH", `/users/${u}/credits/add`, { credits: 2 ** 31 - 1 });
    expect((await t.call("GET", `/users/${u}`)).body).toMatchObject({ credits: 2 ** 32 - 2 });
  });

  it("creates entities with defaults from a missing body and answers the id as a JSON string", async () => {
    const answer = await t.call("POST", "/products");
    expect(answer.status).toBe(200);
    expect(answer.contentType).toMatch(/application\/json/);
    expect(await product(answer.body as string)).toMatchObject({ price: 0, stock: 0 });
    const u = await t.call("POST", "/users", undefined, { "content-type": "application/json" });
    expect(u.status).toBe(200);
    expect(await user(u.body as string)).toMatchObject({ credits: 0 });
    const c = await t.call("POST", "/shopping-carts");
    expect(await cart(c.body as string)).toEqual({ id: c.body, items: [], checkedOut: false });
  });
});
