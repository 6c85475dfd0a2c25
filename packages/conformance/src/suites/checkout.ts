/** Checkout semantics of SPEC 2.1: totals, 409 reasons, compensation, charging once. */
import { randomUUID } from "node:crypto";
import { Actions } from "../actions.ts";
import { expectEqual, expectError, expectShape, type Check } from "../check.ts";
import type { Client } from "../client.ts";
import { CheckoutResult } from "@sfbench/core";

/** Stock of each product and credits of the user, to compare before and after. */
async function snapshot(a: Actions, productIds: string[], userId: string) {
  const stock: Record<string, number> = {};
  for (const p of productIds) stock[p] = (await a.product(p)).stock;
  return { stock, credits: (await a.user(userId)).credits };
}

/** A completed checkout: p1 (price 3) x2 and p2 (price 5) x3 = 21, user with 100 credits. */
async function happyCheckout(c: Client) {
  const a = new Actions(c);
  const p1 = await a.createProduct({ price: 3, stock: 10 });
  const p2 = await a.createProduct({ price: 5, stock: 10 });
  const user = await a.createUser(100);
  const cart = await a.cartWith([
    [p1, 2],
    [p2, 3],
  ]);
  const result = await a.checkout(cart, user);
  return { a, p1, p2, user, cart, result };
}

/** A cart whose checkout must fail for lack of stock on one of two products. */
async function lowStockCart(c: Client) {
  const a = new Actions(c);
  const ok = await a.createProduct({ price: 2, stock: 10 });
  const low = await a.createProduct({ price: 3, stock: 1 });
  const user = await a.createUser(1000);
  const cart = await a.cartWith([
    [ok, 2],
    [low, 5],
  ]);
  const before = await snapshot(a, [ok, low], user);
  const res = await a.checkoutRaw(cart, user);
  return { a, ok, low, user, cart, before, res };
}

/** A cart whose checkout must fail for lack of credits (total 30, credits 29). */
async function poorUserCart(c: Client) {
  const a = new Actions(c);
  const p1 = await a.createProduct({ price: 10, stock: 10 });
  const p2 = await a.createProduct({ price: 5, stock: 10 });
  const user = await a.createUser(29);
  const cart = await a.cartWith([
    [p1, 2],
    [p2, 2],
  ]);
  const before = await snapshot(a, [p1, p2], user);
  const res = await a.checkoutRaw(cart, user);
  return { a, p1, p2, user, cart, before, res };
}

export const checkout: Check[] = [
  {
    id: "total",
    title: "checkout answers 200 {orderId, total} with total = sum(price * amount)",
    run: async (c) => expectEqual((await happyCheckout(c)).result.total, 21, "total of 2 x 3 + 3 x 5"),
  },
  {
    id: "retracts-stock",
    title: "checkout retracts the amounts from stock",
    run: async (c) => {
      const { a, p1, p2 } = await happyCheckout(c);
      expectEqual([(await a.product(p1)).stock, (await a.product(p2)).stock], [8, 7], "stocks after buying 2 of 10 and 3 of 10");
    },
  },
  {
    id: "retracts-credits",
    title: "checkout retracts the total from the user's credits",
    run: async (c) => {
      const { a, user } = await happyCheckout(c);
      expectEqual((await a.user(user)).credits, 79, "credits after paying 21 of 100");
    },
  },
  {
    id: "order-recorded",
    title: "GET /orders/{id} shows the completed order",
    run: async (c) => {
      const { a, user, cart, result } = await happyCheckout(c);
      const order = await a.order(result.orderId);
      expectEqual(
        { id: order.id, cartId: order.cartId, userId: order.userId, status: order.status, total: order.total },
        { id: result.orderId, cartId: cart, userId: user, status: "completed", total: 21 },
        "order",
      );
    },
  },
  {
    id: "cart-marked",
    title: "a checked-out cart shows checkedOut: true",
    run: async (c) => {
      const { a, cart } = await happyCheckout(c);
      expectEqual((await a.cart(cart)).checkedOut, true, "checkedOut");
    },
  },
  {
    id: "cart-charged-once",
    title: "a second checkout of the same cart answers 409 cart-checked-out and charges nothing",
    run: async (c) => {
      const { a, p1, p2, user, cart } = await happyCheckout(c);
      const before = await snapshot(a, [p1, p2], user);
      expectError(await a.checkoutRaw(cart, user), 409, "cart-checked-out");
      expectEqual(await snapshot(a, [p1, p2], user), before, "stock and credits after the second checkout");
    },
  },
  {
    id: "empty-cart-409",
    title: "checking out an empty cart answers 409 empty-cart",
    run: async (c) => {
      const a = new Actions(c);
      const user = await a.createUser(10);
      expectError(await a.checkoutRaw(await a.createCart(), user), 409, "empty-cart");
    },
  },
  {
    id: "insufficient-stock-409",
    title: "a product without enough stock makes checkout answer 409 insufficient-stock",
    run: async (c) => expectError((await lowStockCart(c)).res, 409, "insufficient-stock"),
  },
  {
    id: "insufficient-stock-changes-nothing",
    title: "insufficient-stock puts back the stock other products retracted and charges nothing",
    run: async (c) => {
      const { a, ok, low, user, before } = await lowStockCart(c);
      expectEqual(await snapshot(a, [ok, low], user), before, "stock and credits after the failed checkout");
    },
  },
  {
    id: "insufficient-credits-409",
    title: "a user without enough credits makes checkout answer 409 insufficient-credits",
    run: async (c) => expectError((await poorUserCart(c)).res, 409, "insufficient-credits"),
  },
  {
    id: "insufficient-credits-changes-nothing",
    title: "insufficient-credits puts back all stock and charges nothing",
    run: async (c) => {
      const { a, p1, p2, user, before } = await poorUserCart(c);
      expectEqual(await snapshot(a, [p1, p2], user), before, "stock and credits after the failed checkout");
    },
  },
  {
    id: "failed-cart-not-checked-out",
    title: "after a 409 the cart is not checked out, and succeeds once the user can pay",
    run: async (c) => {
      const { a, user, cart } = await poorUserCart(c);
      expectEqual((await a.cart(cart)).checkedOut, false, "checkedOut after insufficient-credits");
      await a.addCredits(user, 1);
      const res = expectShape(await a.checkoutRaw(cart, user), CheckoutResult, "checkout after adding 1 credit");
      expectEqual(res.total, 30, "total");
      expectEqual((await a.user(user)).credits, 0, "credits after paying 30 of 30");
    },
  },
  {
    id: "unknown-cart-404",
    title: "checkout of an unknown cart answers 404",
    run: async (c) => {
      const user = await new Actions(c).createUser(10);
      expectError(await c.post("/orders/checkout", { cartId: `cf-missing-${randomUUID()}`, userId: user }), 404);
    },
  },
  {
    id: "unknown-user-404",
    title: "checkout for an unknown user answers 404 and changes nothing",
    run: async (c) => {
      const a = new Actions(c);
      const p = await a.createProduct({ price: 1, stock: 5 });
      const cart = await a.cartWith([[p, 2]]);
      expectError(await c.post("/orders/checkout", { cartId: cart, userId: `cf-missing-${randomUUID()}` }), 404);
      expectEqual((await a.product(p)).stock, 5, "stock after the refused checkout");
      expectEqual((await a.cart(cart)).checkedOut, false, "checkedOut after the refused checkout");
    },
  },
  {
    id: "get-unknown-order-404",
    title: "GET /orders/{id} of an unknown id answers 404",
    run: async (c) => expectError(await c.get(`/orders/cf-missing-${randomUUID()}`), 404),
  },
];
