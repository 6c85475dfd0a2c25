/**
 * The failover round of the multi-node targets' own tests (what the fault
 * experiment does to a run): 60 carts over six products, enough that every
 * member hosts some, all checked out at once; one member killed as soon as the
 * first answer comes; then, until it holds, the audit: every cart charged in
 * full or not at all, every cart answered 200 charged, and the stock what the
 * charged carts took. The carts not answered 200 are then checked out again
 * (200, or 409 cart-checked-out), so every cart ends charged. What the killed
 * member's return must show is each system's own.
 */
import { call, eventually, shopper, type Answer } from "./http.ts";

export interface Buyer {
  userId: string;
  cartId: string;
  /** product id -> amount */
  items: Record<string, number>;
  total: number;
}

export interface FailoverRound {
  prices: readonly number[];
  /** every product's stock before the round */
  stock: number;
  /** every buyer's credits before the round */
  credits: number;
  /** one per price, in the same order */
  products: string[];
  buyers: Buyer[];
  /** each buyer's answer to its checkout across the kill (undefined: the connection failed) */
  settled: (Answer | undefined)[];
  /** what the buyers' carts took of each product, every cart charged */
  sold: Map<string, number>;
}

const PRICES = [3, 5, 7, 11, 13, 17] as const;
const STOCK = 1_000_000;
const CREDITS = 10_000;

/**
 * Runs the round against the target at `base`; `kill` kills one member (and
 * may assert how). `settleMs`: how long the audit may take to hold while the
 * survivors take the dead member's entities and finish or undo the checkouts
 * it cut off.
 */
export async function checkoutsAcrossAKill(base: string, kill: () => Promise<void>, settleMs = 120_000): Promise<FailoverRound> {
  const s = shopper(base);
  const products = await Promise.all(PRICES.map((price) => s.product(price, STOCK)));
  const buyers: Buyer[] = await Promise.all(
    Array.from({ length: 60 }, async (_, i) => {
      const userId = await s.user(CREDITS);
      const items = { [products[i % 6]!]: 1 + (i % 3), [products[(i + 1) % 6]!]: 2 };
      const cartId = await s.cart(items);
      const total = Object.entries(items).reduce((sum, [p, amount]) => sum + PRICES[products.indexOf(p)]! * amount, 0);
      return { userId, cartId, items, total };
    }),
  );

  const answers = buyers.map((b) => s.checkout(b.cartId, b.userId).catch(() => undefined));
  await Promise.race(answers);
  await kill();
  const settled = await Promise.all(answers);
  const statuses = settled.map((a) => a?.status ?? "none");
  console.log(
    `checkout answers around the kill: ${JSON.stringify(Object.fromEntries([...new Set(statuses)].map((st) => [st, statuses.filter((x) => x === st).length])))}`,
  );

  const audit = async () => {
    const sold = new Map<string, number>();
    for (const [i, b] of buyers.entries()) {
      // the cart first: where a cart settles a checkout cut off by the kill when it is next activated, this read settles it
      const cart = (await s.ok("GET", `/shopping-carts/${b.cartId}`)) as { checkedOut: boolean };
      const user = (await s.ok("GET", `/users/${b.userId}`)) as { credits: number };
      if (settled[i]?.status === 200 && !cart.checkedOut) throw new Error(`cart ${b.cartId} was answered 200 and is not checked out`);
      const credits = cart.checkedOut ? CREDITS - b.total : CREDITS;
      if (user.credits !== credits) throw new Error(`user ${b.userId} has ${user.credits} credits, cart checked out ${cart.checkedOut}: expected ${credits}`);
      if (cart.checkedOut) for (const [p, amount] of Object.entries(b.items)) sold.set(p, (sold.get(p) ?? 0) + amount);
    }
    for (const p of products) {
      const { stock } = (await s.ok("GET", `/products/${p}`)) as { stock: number };
      if (stock !== STOCK - (sold.get(p) ?? 0)) throw new Error(`product ${p} has ${stock} in stock, the charged carts took ${sold.get(p) ?? 0} of ${STOCK}`);
    }
  };
  await eventually(audit, settleMs);

  for (const [i, b] of buyers.entries()) {
    if (settled[i]?.status === 200) continue;
    const again = await call(base, "POST", "/orders/checkout", { cartId: b.cartId, userId: b.userId });
    const refused = again.status === 409 && (again.body as { error?: string } | undefined)?.error === "cart-checked-out";
    if (again.status !== 200 && !refused) throw new Error(`checkout of cart ${b.cartId} again after the kill -> ${again.status} ${again.text}`);
  }

  const sold = new Map<string, number>();
  for (const b of buyers) for (const [p, amount] of Object.entries(b.items)) sold.set(p, (sold.get(p) ?? 0) + amount);
  return { prices: PRICES, stock: STOCK, credits: CREDITS, products, buyers, settled, sold };
}
