/**
 * What the state must be, given which checkouts completed (SPEC 2.3).
 */
import type { CheckoutRecord } from "./records.ts";

export type ProductIdOf = (item: string | number) => string;

/** Orders of the records that completed, as product id -> amount maps. */
export function completedOrders(records: CheckoutRecord[], completed: (r: CheckoutRecord) => boolean, idOf: ProductIdOf) {
  return records.filter(completed).map((r) => {
    const items = new Map<string, number>();
    for (const [p, amount] of r.items) items.set(idOf(p), (items.get(idOf(p)) ?? 0) + amount);
    return items;
  });
}

/** Stock retracted per product by completed orders. */
export function retracted(orders: Array<Map<string, number>>): Map<string, number> {
  const out = new Map<string, number>();
  for (const o of orders) for (const [p, a] of o) out.set(p, (out.get(p) ?? 0) + a);
  return out;
}

/** count[p][q] = number of completed orders containing both p and q (p != q). */
export function coPurchaseCounts(orders: Array<Map<string, number>>): Map<string, Map<string, number>> {
  const counts = new Map<string, Map<string, number>>();
  for (const o of orders) {
    const ids = [...o.keys()];
    for (const p of ids) {
      let row = counts.get(p);
      if (!row) counts.set(p, (row = new Map()));
      for (const q of ids) if (q !== p) row.set(q, (row.get(q) ?? 0) + 1);
    }
  }
  return counts;
}

/** top(p, n, {p}) by descending count, ties by ascending id (SPEC 2.2). */
export function expectedTop(row: Map<string, number> | undefined, n: number): string[] {
  if (!row) return [];
  return [...row.entries()]
    .sort(([a, x], [b, y]) => y - x || (a < b ? -1 : a > b ? 1 : 0))
    .slice(0, n)
    .map(([id]) => id);
}
