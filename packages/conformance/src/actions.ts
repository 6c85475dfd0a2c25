/**
 * The steps checks build their scenarios from. Each asserts the answer it
 * needs, so a broken step fails the check with the request that broke.
 */
import { randomUUID } from "node:crypto";
import { Cart, CheckoutResult, CreatedId, FreqItems, Order, Product, User } from "@sfbench/core";
import type { Client, RequestOptions } from "./client.ts";
import { expectShape, expectStatus } from "./check.ts";

/** Ids the suite chooses itself (via the PATCH upsert) carry a per-run prefix. */
export const runPrefix = () => `cf-${randomUUID().slice(0, 8)}`;

export class Actions {
  constructor(readonly c: Client) {}

  async createProduct(body: { price?: number; stock?: number } = {}): Promise<string> {
    return expectShape(expectStatus(await this.c.post("/products", body), 200, "POST /products"), CreatedId);
  }
  /** Upsert with an id of the suite's choosing (needed where id order matters). */
  async upsertProduct(id: string, body: { price?: number; stock?: number }): Promise<string> {
    return expectShape(expectStatus(await this.c.patch(`/products/${id}`, body), 200, "PATCH /products/{id}"), CreatedId);
  }
  async product(id: string): Promise<Product> {
    return expectShape(expectStatus(await this.c.get(`/products/${id}`), 200, "GET /products/{id}"), Product);
  }
  async createUser(credits?: number): Promise<string> {
    const body = credits === undefined ? {} : { credits };
    return expectShape(expectStatus(await this.c.post("/users", body), 200, "POST /users"), CreatedId);
  }
  async user(id: string): Promise<User> {
    return expectShape(expectStatus(await this.c.get(`/users/${id}`), 200, "GET /users/{id}"), User);
  }
  async addCredits(id: string, credits: number): Promise<void> {
    expectStatus(await this.c.patch(`/users/${id}/credits/add`, { credits }), 200, "PATCH /users/{id}/credits/add");
  }
  async createCart(): Promise<string> {
    return expectShape(expectStatus(await this.c.post("/shopping-carts"), 200, "POST /shopping-carts"), CreatedId);
  }
  async cart(id: string): Promise<Cart> {
    return expectShape(expectStatus(await this.c.get(`/shopping-carts/${id}`), 200, "GET /shopping-carts/{id}"), Cart);
  }
  async addToCart(cartId: string, productId: string, amount: number): Promise<void> {
    expectStatus(await this.c.post(`/shopping-carts/${cartId}/products`, { productId, amount }), 200, "POST /shopping-carts/{id}/products");
  }
  /** A cart filled with the given [productId, amount] pairs. */
  async cartWith(items: Array<[string, number]>): Promise<string> {
    const cart = await this.createCart();
    for (const [productId, amount] of items) await this.addToCart(cart, productId, amount);
    return cart;
  }
  checkoutRaw(cartId: string, userId: string, opts?: RequestOptions) {
    return this.c.post("/orders/checkout", { cartId, userId }, opts);
  }
  async checkout(cartId: string, userId: string): Promise<CheckoutResult> {
    return expectShape(expectStatus(await this.checkoutRaw(cartId, userId), 200, "POST /orders/checkout"), CheckoutResult);
  }
  async order(id: string): Promise<Order> {
    return expectShape(expectStatus(await this.c.get(`/orders/${id}`), 200, "GET /orders/{id}"), Order);
  }
  async freqItems(id: string, top?: number, depth?: number): Promise<string[]> {
    const q = new URLSearchParams();
    if (top !== undefined) q.set("top", String(top));
    if (depth !== undefined) q.set("depth", String(depth));
    const qs = q.size ? `?${q}` : "";
    return expectShape(expectStatus(await this.c.get(`/products/${id}/freq-items${qs}`), 200, "GET /products/{id}/freq-items"), FreqItems);
  }
  /** Buys every product in `ids` together, `times` times, paid by `userId`. */
  async buyTogether(userId: string, ids: string[], times = 1): Promise<void> {
    for (let i = 0; i < times; i++) await this.checkout(await this.cartWith(ids.map((id) => [id, 1])), userId);
  }
}

/** Runs `fn` over `items` with at most `limit` in flight. */
export async function pool<T, R>(items: T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}
