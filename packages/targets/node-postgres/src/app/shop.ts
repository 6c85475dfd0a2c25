/**
 * The application: every operation of SPEC 2 over one PostgreSQL pool. The
 * HTTP gateway (@sfbench/shop-pg) validates input and calls these; they throw
 * AppError for not-found and business conflicts. What is this target's own:
 * the checkout transaction and the batched co-purchase writer (its checkout
 * holds a cart only inside its transaction, under the row lock).
 */
import { shopOperations, type Db, type FreqItemsLimits, type Shop } from "@sfbench/shop-pg";
import { checkout } from "./checkout.ts";
import { CoPurchaseWriter } from "./co-purchase.ts";

export interface NodePostgresShop extends Shop {
  /** Resolves once every co-purchase update recorded so far is written. */
  settle(): Promise<void>;
  /** Writes what is pending; the caller ends the pool afterwards. */
  close(): Promise<void>;
}

export interface ShopOptions {
  db: Db;
  /** A background write failed (it is retried); `what` says which. */
  onBackgroundError: (err: Error, what: string) => void;
  freqLimits?: FreqItemsLimits;
}

export function createShop({ db, onBackgroundError, freqLimits }: ShopOptions): NodePostgresShop {
  const coPurchase = new CoPurchaseWriter(db, (err, rows) => onBackgroundError(err, `co-purchase update of ${rows} pairs`));
  return {
    ...shopOperations(db, freqLimits),
    checkout: (cartId, userId, trace) => checkout({ db, coPurchase }, cartId, userId, trace),
    settle: () => coPurchase.flush(),
    close: () => coPurchase.close(),
  };
}
