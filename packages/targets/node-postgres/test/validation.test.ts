import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ErrorBody } from "@sfbench/core";
import { shopper, startTarget, testDatabase, type RunningTarget, type Answer } from "./helpers.ts";

let t: RunningTarget;
let s: ReturnType<typeof shopper>;
let productId: string;
let userId: string;
let cartId: string;

beforeAll(async () => {
  t = await startTarget(await testDatabase("validation"));
  s = shopper(t);
  productId = await s.product(1, 10);
  userId = await s.user(10);
  cartId = await s.cart();
});
afterAll(async () => {
  await t?.close();
});

function expectError(answer: Answer, status: number, error: string) {
  expect(answer.status, answer.text).toBe(status);
  expect(answer.contentType).toMatch(/application\/json/);
  const body = ErrorBody.parse(answer.body);
  expect(body.error).toBe(error);
  return body;
}

const longId = "x".repeat(200);

describe("bad input answers 400 {error, message}, never 500", () => {
  it("names the field and the problem", async () => {
    const body = expectError(await t.call("POST", "/products", { price: 1.5 }), 400, "bad-request");
    expect(body.message).toMatch(/^price: /);
  });

  it.each([
    ["malformed JSON", "POST", "/products", '{"price": '],
    ["malformed JSON on checkout", "POST", "/orders/checkout", "{cartId"],
    ["a body that is an array", "POST", "/products", [1, 2]],
    ["a body that is a string", "POST", "/users", '"hello"'],
    ["a body that is null", "POST", "/users", "null"],
    ["a float", "POST", "/products", { price: 1.5 }],
    ["a negative number", "POST", "/products", { stock: -1 }],
    ["2^31", "POST", "/users", { credits: 2 ** 31 }],
    ["a number as a string", "POST", "/products", { price: "5" }],
    ["zero credits to add", "PATCH", "/users/{user}/credits/add", { credits: 0 }],
    ["missing credits to add", "PATCH", "/users/{user}/credits/add", {}],
    ["no body where fields are required", "PATCH", "/users/{user}/credits/add", undefined],
    ["a zero amount", "POST", "/shopping-carts/{cart}/products", { productId: "{product}", amount: 0 }],
    ["a float amount", "POST", "/shopping-carts/{cart}/products", { productId: "{product}", amount: 0.5 }],
    ["a productId of 129 characters", "POST", "/shopping-carts/{cart}/products", { productId: "p".repeat(129), amount: 1 }],
    ["a productId that is a number", "POST", "/shopping-carts/{cart}/products", { productId: 5, amount: 1 }],
    ["an empty cartId", "POST", "/orders/checkout", { cartId: "", userId: "{user}" }],
    ["a missing userId", "POST", "/orders/checkout", { cartId: "{cart}" }],
    ["a 200-character id in GET /products", "GET", `/products/${longId}`, undefined],
    ["a 200-character id in PATCH /products", "PATCH", `/products/${longId}`, { price: 1 }],
    ["a 200-character id in freq-items", "GET", `/products/${longId}/freq-items`, undefined],
    ["a 200-character id in GET /users", "GET", `/users/${longId}`, undefined],
    ["a 200-character id in credits/add", "PATCH", `/users/${longId}/credits/add`, { credits: 1 }],
    ["a 200-character id in GET /shopping-carts", "GET", `/shopping-carts/${longId}`, undefined],
    ["a 200-character id in add to cart", "POST", `/shopping-carts/${longId}/products`, { productId: "{product}", amount: 1 }],
    ["a 200-character id in GET /orders", "GET", `/orders/${longId}`, undefined],
    ["a NUL character in an id", "GET", "/products/a%00b", undefined],
    ["a bad percent-encoding", "GET", "/products/%zz", undefined],
  ] as const)("%s", async (_name, method, path, body) => {
    const fill = (x: string) => x.replace("{user}", userId).replace("{cart}", cartId).replace("{product}", productId);
    const filled = typeof body === "object" && body !== null ? JSON.parse(fill(JSON.stringify(body))) : body;
    expectError(await t.call(method, fill(path), filled), 400, "bad-request");
  });

  it("accepts 2^31-1 and ignores unknown fields", async () => {
    const answer = await t.call("POST", "/products", { price: 2 ** 31 - 1, stock: 0, colour: "red" });
    expect(answer.status).toBe(200);
    expect((await t.call("GET", `/products/${answer.body as string}`)).body).toMatchObject({ price: 2 ** 31 - 1 });
  });

  it("accepts an id of exactly 128 characters", async () => {
    const id = "y".repeat(128);
    expect((await t.call("PATCH", `/products/${id}`, { price: 1 })).status).toBe(200);
    expect((await t.call("GET", `/products/${id}`)).status).toBe(200);
  });

  it("parses JSON whatever the content-type says, and takes a POST without body where none is needed", async () => {
    const answer = await t.call("POST", "/products", '{"price": 3}', { "content-type": "text/plain" });
    expect(answer.status).toBe(200);
    expect((await t.call("POST", "/shopping-carts", "", { "content-type": "application/json" })).status).toBe(200);
  });
});

describe("the gateway's own errors keep the {error, message} shape", () => {
  it("answers 404 not-found for an unknown route or method", async () => {
    expectError(await t.call("GET", "/nope"), 404, "not-found");
    expectError(await t.call("DELETE", `/products/${productId}`), 404, "not-found");
  });

  it("answers 413 for a body over 1 MiB", async () => {
    expectError(await t.call("POST", "/products", JSON.stringify({ pad: "x".repeat(2 ** 20) })), 413, "payload-too-large");
  });

  it("answers 4xx for a content-type header it cannot parse", async () => {
    const answer = await t.call("POST", "/products", "{}", { "content-type": "///" });
    expect(answer.status).toBeGreaterThanOrEqual(400);
    expect(answer.status).toBeLessThan(500);
    ErrorBody.parse(answer.body);
  });
});
