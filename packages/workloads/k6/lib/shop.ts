/** The steps every checkout-shaped iteration shares (checkout, contention, populate). */
import { distinctProducts, type ProductChooser } from "../../src/distributions.ts";
import type { Rng } from "../../src/random.ts";
import type { CartConfig } from "../../src/workload-env.ts";
import type { Api } from "./http.ts";

export interface PlannedItem {
  id: string;
  amount: number;
  /** The price the workload expects (seeded, see productPrice). */
  price: number;
}

/** k ~ U[cartMin, cartMax] distinct products from the chooser, each with amount ~ U[amountMin, amountMax]. */
export function drawItems(
  rng: Rng,
  cart: CartConfig,
  choose: ProductChooser,
  products: number,
  product: (index: number) => { id: string; price: number },
): PlannedItem[] {
  const k = rng.int(cart.cartMin, cart.cartMax);
  return distinctProducts(choose, rng, k, products).map((index) => ({ ...product(index), amount: rng.int(cart.amountMin, cart.amountMax) }));
}

export function totalOf(items: readonly PlannedItem[]): number {
  return items.reduce((sum, item) => sum + item.price * item.amount, 0);
}

/**
 * Creates a user with `credits` credits (create, then add credits: SPEC 4),
 * and a cart holding the items. Undefined when any step failed: the iteration
 * then stops before the checkout, so nothing was charged.
 */
export function prepareCheckout(api: Api, credits: number, items: readonly PlannedItem[]): { user: string; cart: string } | undefined {
  const user = api.createUser();
  if (user === undefined) return undefined;
  if (credits > 0 && !api.addCredits(user, credits)) return undefined;
  const cart = api.createCart();
  if (cart === undefined) return undefined;
  for (const item of items) if (!api.addToCart(cart, item.id, item.amount)) return undefined;
  return { user, cart };
}
