/** Seeding a product so that a re-run with the same prefix stays valid. */
import { sleep } from "k6";
import { audit } from "./audit.ts";
import type { Api } from "./http.ts";

/**
 * How often a seed tries one product. Seeding is setup, not measured: a read
 * or write without a clear answer (the connection closed, a timeout, a 5xx)
 * is tried again after a growing pause, so that one dropped connection, or a
 * target that stalls for half a minute on a loaded machine (workerd's
 * fsyncs behind a busy core took 22 s once), does not end the run. A target
 * that keeps failing for about a minute still does.
 */
export const SEED_TRIES = 5;

/**
 * Sets the price and tops the stock up to `stock` (PATCH adds stock, so a
 * second seed of the same products must add only the difference, or stock
 * would grow past 2^31-1). Every try reads the product first: a write whose
 * answer was lost may have been applied, and the next try then adds only
 * what is still missing. Logs one `product` audit record with the stock
 * before the first try and what all tries added. False once every try failed.
 */
export function seedProduct(api: Api, id: string, price: number, stock: number): boolean {
  let stockBefore: number | undefined;
  for (let attempt = 1; attempt <= SEED_TRIES; attempt++) {
    if (attempt > 1) {
      console.warn(`seed: product ${id} not written on try ${attempt - 1} of ${SEED_TRIES}; reading it again`);
      sleep(attempt - 1);
    }
    const now = api.readProduct(id);
    if (now === undefined) continue;
    const current = now === null ? 0 : now.stock;
    if (stockBefore === undefined) stockBefore = current;
    const add = Math.max(0, stock - current);
    if (!api.patchProduct(id, price, add)) continue;
    audit({ kind: "product", product: id, price, stockBefore, stockAdded: current + add - stockBefore, tries: attempt });
    return true;
  }
  return false;
}
