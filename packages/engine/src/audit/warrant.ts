/**
 * Whether each 409 checkout was warranted by the state the audit reads after
 * the load. A target must not earn throughput by answering "no" fast: a 409
 * is a claim about the state (the cart was empty, already checked out, a
 * product lacked stock, the user lacked credits), and the claim is checked.
 *
 * Stock is the subtle one: at the moment of a 409, a product's stock may have
 * been held by concurrent checkouts that later put it back, or not yet topped
 * up. So a 409 insufficient-stock is unwarranted only when every product of
 * the cart had enough even in the worst case: the stock read after the load,
 * less what was added during it, less every amount of that product that
 * another rejected or unanswered checkout could have been holding, still
 * covers the amount asked.
 */
import type { ProductIdOf } from "./expected.ts";
import type { CheckoutRecord } from "./records.ts";

export interface WarrantInput {
  records: readonly CheckoutRecord[];
  /** stock per product as read after the load (products not read: the claim cannot be judged, it stands) */
  stockAfter: ReadonlyMap<string, number>;
  /** stock added to products during the load */
  stockAdded?: ReadonlyMap<string, number>;
  idOf: ProductIdOf;
  priceOf: (productId: string) => number;
}

export interface Unwarranted {
  record: CheckoutRecord;
  why: string;
}

/** The 409 checkouts whose claim the state read after the load contradicts. */
export function unwarrantedRejections(input: WarrantInput): Unwarranted[] {
  const { records, stockAfter, idOf, priceOf } = input;
  // what other checkouts that did not complete could have held of each product at some moment
  const mayHold = new Map<string, number>();
  for (const r of records) if (r.status !== 200) for (const [p, a] of r.items) mayHold.set(idOf(p), (mayHold.get(idOf(p)) ?? 0) + a);
  const out: Unwarranted[] = [];
  for (const r of records) {
    if (r.status !== 409) continue;
    const total = r.items.reduce((s, [p, a]) => s + priceOf(idOf(p)) * a, 0);
    switch (r.error) {
      case "insufficient-credits":
        if (r.credits >= total)
          out.push({ record: r, why: `cart ${r.cart}: 409 insufficient-credits, but user ${r.user} was given ${r.credits} credits for a total of ${total}` });
        break;
      case "insufficient-stock": {
        const lacking = r.items.some(([p, a]) => {
          const id = idOf(p);
          const after = stockAfter.get(id);
          if (after === undefined) return true;
          const worst = after - (input.stockAdded?.get(id) ?? 0) - ((mayHold.get(id) ?? 0) - a);
          return worst < a;
        });
        if (!lacking) out.push({ record: r, why: `cart ${r.cart}: 409 insufficient-stock, but every product had stock for it throughout the load` });
        break;
      }
      case "empty-cart":
        if (r.items.length > 0) out.push({ record: r, why: `cart ${r.cart}: 409 empty-cart for a cart the workload filled with ${r.items.length} products` });
        break;
      case "cart-checked-out":
        out.push({ record: r, why: `cart ${r.cart}: 409 cart-checked-out at its one and only checkout` });
        break;
      default:
        out.push({ record: r, why: `cart ${r.cart}: 409 with error ${JSON.stringify(r.error ?? null)}, not a reason SPEC 2.1 gives` });
    }
  }
  return out;
}
