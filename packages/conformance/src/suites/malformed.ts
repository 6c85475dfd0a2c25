/**
 * Malformed input (SPEC 2): every case answers 4xx with an error body, never
 * 5xx, and nothing already stored changes.
 */
import { Actions } from "../actions.ts";
import { expectEqual, expectError, fail, type Check } from "../check.ts";
import type { Client } from "../client.ts";

interface Fixture {
  product: string;
  user: string;
  cart: string;
}

interface Case {
  id: string;
  title: string;
  method: "GET" | "POST" | "PATCH" | "DELETE" | "PUT";
  path: (f: Fixture) => string;
  /** a JSON value (or a function of the fixture giving one), or raw text when `raw` */
  body?: unknown;
  raw?: boolean;
  /** allowed statuses; body validation is 400 per SPEC 2 */
  status?: number[];
}

const LONG = "x".repeat(200);
const TOO_BIG = 2 ** 31;

const body = (id: string, title: string, method: Case["method"], path: Case["path"], value: unknown, raw = false): Case => ({
  id,
  title,
  method,
  path,
  body: value,
  raw,
});

const products = () => "/products";
const product = (f: Fixture) => `/products/${f.product}`;
const users = () => "/users";
const credits = (f: Fixture) => `/users/${f.user}/credits/add`;
const cartProducts = (f: Fixture) => `/shopping-carts/${f.cart}/products`;
const checkout = () => "/orders/checkout";
const freq = (q: string) => (f: Fixture) => `/products/${f.product}/freq-items?${q}`;

export const CASES: Case[] = [
  body("products-bad-json", "POST /products with malformed JSON", "POST", products, '{"price":', true),
  body("products-array-body", "POST /products with an array body", "POST", products, [1, 2]),
  body("products-string-body", "POST /products with a string body", "POST", products, "price"),
  body("products-number-body", "POST /products with a number body", "POST", products, 5),
  body("products-null-body", "POST /products with a null body", "POST", products, null),
  body("products-price-string", "POST /products with price as a string", "POST", products, { price: "10" }),
  body("products-price-float", "POST /products with a fractional price", "POST", products, { price: 1.5 }),
  body("products-price-negative", "POST /products with a negative price", "POST", products, { price: -1 }),
  body("products-price-too-big", "POST /products with price 2^31", "POST", products, { price: TOO_BIG }),
  body("products-price-huge", "POST /products with price 1e20", "POST", products, { price: 1e20 }),
  body("products-price-object", "POST /products with price as an object", "POST", products, { price: {} }),
  body("products-price-null", "POST /products with price null", "POST", products, { price: null }),
  body("products-stock-boolean", "POST /products with stock as a boolean", "POST", products, { stock: true }),
  body("products-stock-negative", "POST /products with a negative stock", "POST", products, { stock: -5 }),
  body("products-stock-float", "POST /products with a fractional stock", "POST", products, { stock: 0.25 }),
  body("patch-product-long-id", "PATCH /products/{id} with a 200-character id", "PATCH", () => `/products/${LONG}`, { price: 1 }),
  body("patch-product-price-negative", "PATCH /products/{id} with a negative price", "PATCH", product, { price: -3 }),
  body("patch-product-stock-negative", "PATCH /products/{id} with a negative stock", "PATCH", product, { stock: -3 }),
  body("patch-product-stock-float", "PATCH /products/{id} with a fractional stock", "PATCH", product, { stock: 2.5 }),
  body("patch-product-bad-json", "PATCH /products/{id} with malformed JSON", "PATCH", product, "{stock: 1}", true),
  body("users-bad-json", "POST /users with malformed JSON", "POST", users, '{"credits": 1,,}', true),
  body("users-array-body", "POST /users with an array body", "POST", users, [{ credits: 1 }]),
  body("users-credits-string", "POST /users with credits as a string", "POST", users, { credits: "100" }),
  body("users-credits-negative", "POST /users with negative credits", "POST", users, { credits: -100 }),
  body("users-credits-too-big", "POST /users with credits 2^31", "POST", users, { credits: TOO_BIG }),
  body("credits-zero", "adding 0 credits", "PATCH", credits, { credits: 0 }),
  body("credits-negative", "adding negative credits", "PATCH", credits, { credits: -10 }),
  body("credits-missing", "adding credits without a credits field", "PATCH", credits, {}),
  body("credits-float", "adding fractional credits", "PATCH", credits, { credits: 2.5 }),
  body("credits-string", "adding credits as a string", "PATCH", credits, { credits: "10" }),
  body("credits-too-big", "adding 2^31 credits", "PATCH", credits, { credits: TOO_BIG }),
  body("credits-long-user-id", "adding credits to a 200-character user id", "PATCH", () => `/users/${LONG}/credits/add`, { credits: 1 }),
  body("cart-amount-zero", "adding amount 0 to a cart", "POST", cartProducts, (f: Fixture) => ({ productId: f.product, amount: 0 })),
  body("cart-amount-negative", "adding a negative amount to a cart", "POST", cartProducts, (f: Fixture) => ({ productId: f.product, amount: -1 })),
  body("cart-amount-float", "adding a fractional amount to a cart", "POST", cartProducts, (f: Fixture) => ({ productId: f.product, amount: 1.5 })),
  body("cart-amount-missing", "adding to a cart without an amount", "POST", cartProducts, (f: Fixture) => ({ productId: f.product })),
  body("cart-amount-too-big", "adding amount 2^31 to a cart", "POST", cartProducts, (f: Fixture) => ({ productId: f.product, amount: TOO_BIG })),
  body("cart-product-missing", "adding to a cart without a productId", "POST", cartProducts, { amount: 1 }),
  body("cart-product-number", "adding to a cart with a numeric productId", "POST", cartProducts, { productId: 7, amount: 1 }),
  body("cart-product-long-id", "adding a 200-character productId to a cart", "POST", cartProducts, { productId: LONG, amount: 1 }),
  body("cart-bad-json", "adding to a cart with malformed JSON", "POST", cartProducts, "not json", true),
  body(
    "cart-long-id",
    "adding to a 200-character cart id",
    "POST",
    () => `/shopping-carts/${LONG}/products`,
    (f: Fixture) => ({ productId: f.product, amount: 1 }),
  ),
  body("checkout-cart-missing", "checkout without a cartId", "POST", checkout, { userId: "u" }),
  body("checkout-user-missing", "checkout without a userId", "POST", checkout, { cartId: "c" }),
  body("checkout-cart-number", "checkout with a numeric cartId", "POST", checkout, { cartId: 1, userId: "u" }),
  body("checkout-array-body", "checkout with an array body", "POST", checkout, ["c", "u"]),
  body("checkout-bad-json", "checkout with malformed JSON", "POST", checkout, "{", true),
  body("checkout-long-user-id", "checkout with a 200-character userId", "POST", checkout, { cartId: "c", userId: LONG }),
  { id: "get-product-nul-id", title: "GET /products/{id} with a NUL character in the id", method: "GET", path: () => "/products/nul%00id" },
  body("patch-product-nul-id", "PATCH /products/{id} with a NUL character in the id", "PATCH", () => "/products/nul%00id", { price: 1 }),
  body("cart-product-nul-id", "adding a productId with a NUL character to a cart", "POST", cartProducts, { productId: "nul\u0000id", amount: 1 }),
  { id: "get-product-long-id", title: "GET /products/{id} with a 200-character id", method: "GET", path: () => `/products/${LONG}` },
  { id: "get-user-long-id", title: "GET /users/{id} with a 200-character id", method: "GET", path: () => `/users/${LONG}` },
  { id: "get-cart-long-id", title: "GET /shopping-carts/{id} with a 200-character id", method: "GET", path: () => `/shopping-carts/${LONG}` },
  { id: "get-order-long-id", title: "GET /orders/{id} with a 200-character id", method: "GET", path: () => `/orders/${LONG}` },
  { id: "freq-top-zero", title: "freq-items with top=0", method: "GET", path: freq("top=0") },
  { id: "freq-top-too-big", title: "freq-items with top=101", method: "GET", path: freq("top=101") },
  { id: "freq-top-text", title: "freq-items with top=abc", method: "GET", path: freq("top=abc") },
  { id: "freq-depth-zero", title: "freq-items with depth=0", method: "GET", path: freq("depth=0") },
  { id: "freq-depth-too-big", title: "freq-items with depth=21", method: "GET", path: freq("depth=21") },
  { id: "freq-depth-float", title: "freq-items with depth=1.5", method: "GET", path: freq("depth=1.5") },
  { id: "unknown-route", title: "GET of an unknown route", method: "GET", path: () => "/no-such-route", status: [404] },
  { id: "unknown-method", title: "DELETE /products/{id} (no such route)", method: "DELETE", path: product, status: [404, 405] },
  { id: "put-orders", title: "PUT /orders/checkout (no such route)", method: "PUT", path: checkout, body: {}, status: [404, 405] },
];

async function makeFixture(c: Client): Promise<Fixture> {
  const a = new Actions(c);
  const product = await a.createProduct({ price: 7, stock: 11 });
  const user = await a.createUser(13);
  const cart = await a.cartWith([[product, 2]]);
  return { product, user, cart };
}

export function malformed(): Check[] {
  let fixture: Promise<Fixture> | undefined;
  const setup = (c: Client) => (fixture ??= makeFixture(c));
  const cases: Check[] = CASES.map((k) => ({
    id: k.id,
    title: `${k.title} answers ${k.status ? k.status.join("/") : "400"}`,
    run: async (c) => {
      const f = await setup(c).catch((e: Error) => fail(`setup failed: ${e.message}`));
      const value = typeof k.body === "function" ? (k.body as (f: Fixture) => unknown)(f) : k.body;
      const res = await c.request(k.method, k.path(f), { body: value, raw: k.raw });
      if (res.status >= 500) fail(`answered ${res.status}: a well-formed request must never get 5xx, a malformed one 4xx`);
      expectError(res, k.status ?? [400]);
    },
  }));
  cases.push({
    id: "nothing-changed",
    title: "after all malformed requests the product, user and cart are unchanged",
    run: async (c) => {
      const f = await setup(c).catch((e: Error) => fail(`setup failed: ${e.message}`));
      const a = new Actions(c);
      expectEqual(await a.product(f.product), { id: f.product, price: 7, stock: 11 }, "product");
      expectEqual(await a.user(f.user), { id: f.user, credits: 13 }, "user");
      expectEqual(await a.cart(f.cart), { id: f.cart, items: [{ productId: f.product, amount: 2 }], checkedOut: false }, "cart");
    },
  });
  return cases;
}
