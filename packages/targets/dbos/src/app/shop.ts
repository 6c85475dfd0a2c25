/**
 * The application: every operation of SPEC 2 over one PostgreSQL pool, the
 * checkout and the co-purchase counts as DBOS workflows (registered here,
 * before DBOS.launch()). The HTTP gateway (src/http) validates input and calls
 * these; they throw AppError for not-found and business conflicts.
 */
import { randomUUID } from "node:crypto";
import type { Cart, CheckoutResult, Order, Product, User } from "@sfbench/core";
import { addToCart, createCart, getCart } from "./carts.ts";
import { registerCheckout } from "./checkout.ts";
import { registerCoPurchase } from "./co-purchase.ts";
import type { Db } from "./db.ts";
import { AppError } from "./errors.ts";
import { DEFAULT_FREQ_LIMITS, freqItems, type FreqItemsLimits } from "./freq-items.ts";
import { getOrder } from "./orders.ts";
import { createProduct, getProduct, upsertProduct, type ProductFields } from "./products.ts";
import type { Trace } from "./trace.ts";
import { addCredits, createUser, getUser } from "./users.ts";

export interface Shop {
  createProduct(fields: ProductFields, trace?: Trace): Promise<string>;
  upsertProduct(id: string, fields: ProductFields, trace?: Trace): Promise<string>;
  getProduct(id: string, trace?: Trace): Promise<Product>;
  freqItems(id: string, top: number, depth: number, trace?: Trace): Promise<string[]>;
  createUser(credits: number | undefined, trace?: Trace): Promise<string>;
  getUser(id: string, trace?: Trace): Promise<User>;
  addCredits(id: string, credits: number, trace?: Trace): Promise<void>;
  createCart(trace?: Trace): Promise<string>;
  getCart(id: string, trace?: Trace): Promise<Cart>;
  addToCart(cartId: string, productId: string, amount: number, trace?: Trace): Promise<void>;
  checkout(cartId: string, userId: string, trace?: Trace): Promise<CheckoutResult>;
  getOrder(id: string, trace?: Trace): Promise<Order>;
}

export interface ShopOptions {
  db: Db;
  freqLimits?: FreqItemsLimits;
}

/** Registers the workflows with DBOS: call once, before DBOS.launch(). */
export function createShop({ db, freqLimits = DEFAULT_FREQ_LIMITS }: ShopOptions): Shop {
  const checkout = registerCheckout(db, registerCoPurchase(db));
  return {
    createProduct: (fields, trace) => createProduct(db, fields, trace),
    upsertProduct: (id, fields, trace) => upsertProduct(db, id, fields, trace),
    getProduct: (id, trace) => getProduct(db, id, trace),
    freqItems: (id, top, depth, trace) => freqItems(db, id, top, depth, trace, freqLimits),
    createUser: (credits, trace) => createUser(db, credits, trace),
    getUser: (id, trace) => getUser(db, id, trace),
    addCredits: (id, credits, trace) => addCredits(db, id, credits, trace),
    createCart: (trace) => createCart(db, trace),
    getCart: (id, trace) => getCart(db, id, trace),
    addToCart: (cartId, productId, amount, trace) => addToCart(db, cartId, productId, amount, trace),
    async checkout(cartId, userId, trace) {
      const outcome = await checkout(randomUUID(), cartId, userId, trace);
      if (!outcome.ok) throw new AppError(outcome.refused, outcome.message);
      return { orderId: outcome.orderId, total: outcome.total };
    },
    getOrder: (id, trace) => getOrder(db, id, trace),
  };
}
