/** Routes, status codes and body shapes of products, users and carts (SPEC 2). */
import { randomUUID } from "node:crypto";
import { CreatedId } from "@sfbench/core";
import { Actions } from "../actions.ts";
import { expectEqual, expectError, expectShape, expectStatus, fail, type Check } from "../check.ts";

const unknownId = () => `cf-missing-${randomUUID()}`;

export const health: Check[] = [
  {
    id: "answers-200",
    title: "GET /health answers 200",
    run: async (c) => void expectStatus(await c.get("/health"), 200),
  },
];

export const products: Check[] = [
  {
    id: "create-defaults",
    title: "POST /products with {} creates a product with price 0 and stock 0",
    run: async (c) => {
      const a = new Actions(c);
      const id = await a.createProduct({});
      expectEqual(await a.product(id), { id, price: 0, stock: 0 }, "GET /products/{id}");
    },
  },
  {
    id: "create-no-body",
    title: "POST /products with no body at all creates a product with price 0 and stock 0 (no body means {})",
    run: async (c) => {
      const id = expectShape(expectStatus(await c.post("/products"), 200), CreatedId);
      expectEqual(await new Actions(c).product(id), { id, price: 0, stock: 0 }, "GET /products/{id}");
    },
  },
  {
    id: "create-with-values",
    title: "POST /products stores price and stock",
    run: async (c) => {
      const a = new Actions(c);
      const id = await a.createProduct({ price: 42, stock: 7 });
      expectEqual(await a.product(id), { id, price: 42, stock: 7 }, "GET /products/{id}");
    },
  },
  {
    id: "ids-unique",
    title: "two creates return two different ids",
    run: async (c) => {
      const a = new Actions(c);
      const [x, y] = await Promise.all([a.createProduct({}), a.createProduct({})]);
      if (x === y) fail(`both creates returned "${x}"`);
    },
  },
  {
    id: "patch-creates",
    title: "PATCH /products/{id} of an unknown id creates it (upsert)",
    run: async (c) => {
      const a = new Actions(c);
      const id = `cf-${randomUUID()}`;
      const returned = await a.upsertProduct(id, { price: 5, stock: 3 });
      expectEqual(returned, id, "returned id");
      expectEqual(await a.product(id), { id, price: 5, stock: 3 }, "GET after upsert");
    },
  },
  {
    id: "patch-sets-price-adds-stock",
    title: "PATCH /products/{id} sets the price and adds the stock",
    run: async (c) => {
      const a = new Actions(c);
      const id = await a.createProduct({ price: 42, stock: 7 });
      await a.upsertProduct(id, { price: 9, stock: 2 });
      expectEqual(await a.product(id), { id, price: 9, stock: 9 }, "GET after PATCH {price: 9, stock: 2} of {price: 42, stock: 7}");
      await a.upsertProduct(id, { stock: 1 });
      expectEqual(await a.product(id), { id, price: 9, stock: 10 }, "GET after PATCH {stock: 1} (price kept)");
    },
  },
  {
    id: "get-unknown-404",
    title: "GET /products/{id} of an unknown id answers 404 with an error body",
    run: async (c) => expectError(await c.get(`/products/${unknownId()}`), 404),
  },
];

export const users: Check[] = [
  {
    id: "create-defaults",
    title: "POST /users with {} creates a user with 0 credits",
    run: async (c) => {
      const a = new Actions(c);
      const id = await a.createUser();
      expectEqual(await a.user(id), { id, credits: 0 }, "GET /users/{id}");
    },
  },
  {
    id: "create-no-body",
    title: "POST /users with no body at all creates a user with 0 credits (no body means {})",
    run: async (c) => {
      const id = expectShape(expectStatus(await c.post("/users"), 200), CreatedId);
      expectEqual(await new Actions(c).user(id), { id, credits: 0 }, "GET /users/{id}");
    },
  },
  {
    id: "unknown-fields-ignored",
    title: "POST /users ignores unknown fields, __proto__ and constructor included",
    run: async (c) => {
      const text = '{"credits": 5, "colour": "red", "__proto__": {"credits": 9}, "constructor": {"prototype": {"credits": 9}}}';
      const id = expectShape(expectStatus(await c.request("POST", "/users", { body: text, raw: true }), 200), CreatedId);
      expectEqual(await new Actions(c).user(id), { id, credits: 5 }, "GET /users/{id}");
    },
  },
  {
    id: "create-with-credits",
    title: "POST /users stores credits",
    run: async (c) => {
      const a = new Actions(c);
      const id = await a.createUser(100);
      expectEqual(await a.user(id), { id, credits: 100 }, "GET /users/{id}");
    },
  },
  {
    id: "add-credits",
    title: "PATCH /users/{id}/credits/add adds credits",
    run: async (c) => {
      const a = new Actions(c);
      const id = await a.createUser(100);
      await a.addCredits(id, 50);
      expectEqual((await a.user(id)).credits, 150, "credits after adding 50 to 100");
    },
  },
  {
    id: "get-unknown-404",
    title: "GET /users/{id} of an unknown id answers 404",
    run: async (c) => expectError(await c.get(`/users/${unknownId()}`), 404),
  },
  {
    id: "add-credits-unknown-404",
    title: "adding credits to an unknown user answers 404",
    run: async (c) => expectError(await c.patch(`/users/${unknownId()}/credits/add`, { credits: 5 }), 404),
  },
];

export const carts: Check[] = [
  {
    id: "create-empty",
    title: "POST /shopping-carts creates an empty cart that is not checked out",
    run: async (c) => {
      const a = new Actions(c);
      const id = expectShape(expectStatus(await c.post("/shopping-carts"), 200), CreatedId);
      expectEqual(await a.cart(id), { id, items: [], checkedOut: false }, "GET /shopping-carts/{id}");
    },
  },
  {
    id: "add-product",
    title: "adding a product puts it in the cart with its amount",
    run: async (c) => {
      const a = new Actions(c);
      const p = await a.createProduct({ price: 1, stock: 10 });
      const cart = await a.cartWith([[p, 2]]);
      expectEqual((await a.cart(cart)).items, [{ productId: p, amount: 2 }], "cart items");
    },
  },
  {
    id: "amounts-accumulate",
    title: "amounts for the same product accumulate",
    run: async (c) => {
      const a = new Actions(c);
      const p = await a.createProduct({ price: 1, stock: 10 });
      const cart = await a.cartWith([
        [p, 2],
        [p, 3],
      ]);
      expectEqual((await a.cart(cart)).items, [{ productId: p, amount: 5 }], "cart items after adding 2 then 3");
    },
  },
  {
    id: "get-unknown-404",
    title: "GET /shopping-carts/{id} of an unknown id answers 404",
    run: async (c) => expectError(await c.get(`/shopping-carts/${unknownId()}`), 404),
  },
  {
    id: "add-to-unknown-cart-404",
    title: "adding to an unknown cart answers 404",
    run: async (c) => {
      const p = await new Actions(c).createProduct({ price: 1, stock: 1 });
      expectError(await c.post(`/shopping-carts/${unknownId()}/products`, { productId: p, amount: 1 }), 404);
    },
  },
  {
    id: "add-unknown-product-404",
    title: "adding an unknown product answers 404",
    run: async (c) => {
      const cart = await new Actions(c).createCart();
      expectError(await c.post(`/shopping-carts/${cart}/products`, { productId: unknownId(), amount: 1 }), 404);
    },
  },
  {
    id: "add-after-checkout-409",
    title: "adding to a checked-out cart answers 409 cart-checked-out",
    run: async (c) => {
      const a = new Actions(c);
      const p = await a.createProduct({ price: 1, stock: 10 });
      const u = await a.createUser(10);
      const cart = await a.cartWith([[p, 1]]);
      await a.checkout(cart, u);
      expectError(await c.post(`/shopping-carts/${cart}/products`, { productId: p, amount: 1 }), 409, "cart-checked-out");
    },
  },
];
