/** Seeding a product so that a re-run with the same prefix stays valid. */
import { audit } from "./audit.ts";
import type { Api } from "./http.ts";

/**
 * Sets the price and tops the stock up to `stock` (PATCH adds stock, so a
 * second seed of the same products must add only the difference, or stock
 * would grow past 2^31-1). Logs a `product` audit record. False on failure.
 */
export function seedProduct(api: Api, id: string, price: number, stock: number): boolean {
  const before = api.readProduct(id);
  if (before === undefined) return false;
  const stockBefore = before === null ? 0 : before.stock;
  const stockAdded = Math.max(0, stock - stockBefore);
  if (!api.patchProduct(id, price, stockAdded)) return false;
  audit({ kind: "product", product: id, price, stockBefore, stockAdded });
  return true;
}
