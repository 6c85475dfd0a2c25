/**
 * The application: every operation of SPEC 2 over one PostgreSQL pool, the
 * checkout and the co-purchase counts as DBOS workflows (registered here,
 * before DBOS.launch()). The HTTP gateway (@sfbench/shop-pg) validates input
 * and calls these; they throw AppError for not-found and business conflicts.
 */
import { randomUUID } from "node:crypto";
import { AppError, shopOperations, type Db, type FreqItemsLimits, type Shop } from "@sfbench/shop-pg";
import { registerCheckout } from "./checkout.ts";
import { registerCoPurchase } from "./co-purchase.ts";

export interface ShopOptions {
  db: Db;
  freqLimits?: FreqItemsLimits;
}

/**
 * A checkout workflow claims its cart in its first step (checkout_by) and
 * charges for the items it read then: until it completes, the cart refuses
 * items like a checked-out one.
 */
const CHECKOUT_HOLD = { sql: "checkout_by IS NOT NULL", says: "or being checked out" };

/** Registers the workflows with DBOS: call once, before DBOS.launch(). */
export function createShop({ db, freqLimits }: ShopOptions): Shop {
  const checkout = registerCheckout(db, registerCoPurchase(db));
  return {
    ...shopOperations(db, freqLimits, CHECKOUT_HOLD),
    async checkout(cartId, userId, trace) {
      const outcome = await checkout(randomUUID(), cartId, userId, trace);
      if (!outcome.ok) throw new AppError(outcome.refused, outcome.message);
      return { orderId: outcome.orderId, total: outcome.total };
    },
  };
}
