/**
 * The SPEC 2 operations that are plain SQL over the pool in every target of
 * this package: all but checkout. The add-to-cart rule follows how the
 * target's checkout holds a cart (`hold`, carts.ts).
 */
import type { Shop } from "./api.ts";
import { addToCart, createCart, getCart, type CartHold } from "./carts.ts";
import type { Db } from "./db.ts";
import { DEFAULT_FREQ_LIMITS, freqItems, type FreqItemsLimits } from "./freq-items.ts";
import { getOrder } from "./orders.ts";
import { createProduct, getProduct, upsertProduct } from "./products.ts";
import { addCredits, createUser, getUser } from "./users.ts";

export type ShopOperations = Omit<Shop, "checkout">;

export function shopOperations(db: Db, freqLimits: FreqItemsLimits = DEFAULT_FREQ_LIMITS, hold?: CartHold): ShopOperations {
  return {
    createCart: (trace) => createCart(db, trace),
    getCart: (id, trace) => getCart(db, id, trace),
    addToCart: (cartId, productId, amount, trace) => addToCart(db, cartId, productId, amount, trace, hold),
    createProduct: (fields, trace) => createProduct(db, fields, trace),
    upsertProduct: (id, fields, trace) => upsertProduct(db, id, fields, trace),
    getProduct: (id, trace) => getProduct(db, id, trace),
    freqItems: (id, top, depth, trace) => freqItems(db, id, top, depth, trace, freqLimits),
    createUser: (credits, trace) => createUser(db, credits, trace),
    getUser: (id, trace) => getUser(db, id, trace),
    addCredits: (id, credits, trace) => addCredits(db, id, credits, trace),
    getOrder: (id, trace) => getOrder(db, id, trace),
  };
}
