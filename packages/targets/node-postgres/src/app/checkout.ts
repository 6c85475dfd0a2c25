/**
 * Checkout (SPEC 2.1) as one PostgreSQL transaction.
 *
 * Lock order, the same in every transaction, so checkouts never deadlock:
 * cart row, then the cart's product rows in id order, then the user row.
 * Every failure throws before COMMIT, so a 409 changes nothing: the
 * transaction is rolled back, which is the "compensation" of SPEC 2.1.
 */
import { randomUUID } from "node:crypto";
import type { CheckoutResult } from "@sfbench/core";
import { wallMicros } from "@sfbench/core/span";
import { AppError, notFound, recordFunctionSpans, traced, transaction, type Db, type Trace, type Tx } from "@sfbench/shop-pg";
import type { CoPurchaseWriter } from "./co-purchase.ts";

const INT8_MAX = 2n ** 63n - 1n;

interface Item {
  productId: string;
  amount: number;
}

/** Step 1: lock the cart, check the user exists, read the items. */
async function readCart(tx: Tx, cartId: string, userId: string): Promise<Item[]> {
  const cart = await tx.query<{ checked_out: boolean; user_found: boolean }>({
    name: "checkout-lock-cart",
    text: `SELECT c.checked_out, EXISTS (SELECT 1 FROM users u WHERE u.id = $2) AS user_found
           FROM carts c WHERE c.id = $1 FOR NO KEY UPDATE OF c`,
    values: [cartId, userId],
  });
  const row = cart.rows[0];
  if (!row) throw notFound("cart", cartId);
  if (!row.user_found) throw notFound("user", userId);
  if (row.checked_out) throw new AppError("cart-checked-out", `cart ${JSON.stringify(cartId)} is already checked out`);
  // A second statement, so that it sees items added by anyone who held the cart before us.
  const items = await tx.query<{ product_id: string; amount: number }>({
    name: "checkout-read-items",
    text: "SELECT product_id, amount FROM cart_items WHERE cart_id = $1 ORDER BY product_id",
    values: [cartId],
  });
  if (items.rows.length === 0) throw new AppError("empty-cart", `cart ${JSON.stringify(cartId)} is empty`);
  return items.rows.map((r) => ({ productId: r.product_id, amount: r.amount }));
}

/** Steps 2-3: lock the products in id order, check stock, retract it. Returns the total. */
async function retractStock(tx: Tx, items: readonly Item[]): Promise<bigint> {
  const ids = items.map((i) => i.productId);
  const { rows } = await tx.query<{ id: string; price: number; stock: number }>({
    name: "checkout-lock-products",
    text: "SELECT id, price, stock FROM products WHERE id = ANY ($1::text[]) ORDER BY id FOR NO KEY UPDATE",
    values: [ids],
  });
  const byId = new Map(rows.map((r) => [r.id, r]));
  const lacking = items.filter((i) => (byId.get(i.productId)?.stock ?? 0) < i.amount).map((i) => i.productId);
  if (lacking.length > 0) throw new AppError("insufficient-stock", `not enough stock of ${lacking.join(", ")}`);
  await tx.query({
    name: "checkout-retract-stock",
    text: `UPDATE products AS p SET stock = p.stock - i.amount
           FROM unnest($1::text[], $2::bigint[]) AS i (id, amount) WHERE p.id = i.id`,
    values: [ids, items.map((i) => i.amount)],
  });
  return items.reduce((sum, i) => sum + BigInt(byId.get(i.productId)!.price) * BigInt(i.amount), 0n);
}

/** Step 4: retract the total from the user, atomically or not at all. */
async function retractCredits(tx: Tx, userId: string, total: bigint): Promise<void> {
  const retracted =
    total <= INT8_MAX &&
    (
      await tx.query({
        name: "checkout-retract-credits",
        text: "UPDATE users SET credits = credits - $2 WHERE id = $1 AND credits >= $2",
        values: [userId, total.toString()],
      })
    ).rowCount === 1;
  if (!retracted) throw new AppError("insufficient-credits", `user ${JSON.stringify(userId)} has fewer than ${total} credits`);
}

/** Step 5: mark the cart checked out and record the completed order. */
async function recordOrder(tx: Tx, orderId: string, cartId: string, userId: string, total: bigint): Promise<void> {
  await tx.query({
    name: "checkout-record-order",
    text: `WITH cart AS (UPDATE carts SET checked_out = true WHERE id = $2)
           INSERT INTO orders (id, cart_id, user_id, status, total) VALUES ($1, $2, $3, 'completed', $4)`,
    values: [orderId, cartId, userId, total.toString()],
  });
}

export interface CheckoutDeps {
  db: Db;
  coPurchase: CoPurchaseWriter;
}

export async function checkout({ db, coPurchase }: CheckoutDeps, cartId: string, userId: string, trace?: Trace): Promise<CheckoutResult> {
  const orderId = randomUUID();
  let productIds: string[] = [];
  let orderStart = 0;
  const total = await transaction(db, async (tx) => {
    const items = await traced(trace, "cart", "read", cartId, () => readCart(tx, cartId, userId));
    productIds = items.map((i) => i.productId);
    const sum = await traced(trace, "product", "retractStock", productIds, () => retractStock(tx, items));
    await traced(trace, "user", "retractCredits", userId, () => retractCredits(tx, userId, sum));
    orderStart = trace ? wallMicros() : 0;
    await recordOrder(tx, orderId, cartId, userId, sum);
    return sum;
  });
  // The order span includes COMMIT: that is when the order becomes durable.
  if (trace) recordFunctionSpans(trace, "order", "create", [orderId], orderStart, wallMicros());
  // Step 6, off the latency path: the writer batches and writes after this request has been answered.
  coPurchase.record(productIds);
  return { orderId, total: Number(total) };
}
