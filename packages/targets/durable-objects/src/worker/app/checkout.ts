/**
 * The checkout saga of SPEC 2.1 as calls between Durable Objects. The cart
 * object runs it (one at a time per cart) and records its progress in its
 * own storage first, so that a checkout cut short by a crash is finished or
 * undone when the cart is next used (see CartObject.resume).
 *
 *   reserve   fan-out: every product retracts its amount (concurrently);
 *             fan-in: any shortage puts back what the others took
 *   charge    the user pays the total, or everything is put back
 *   complete  the order is recorded and the cart marked (CartObject)
 *   settle    after the answer: holds become final, co-purchase counts grow
 *
 * Every step is idempotent per order id (product holds, user charges), so
 * repeating one after a crash changes nothing twice; the user object tells a
 * recovering cart whether the order was paid (and voids it if not).
 */
import { ok, type Env, type Outcome } from "./env.ts";
import type { TraceContext } from "./trace.ts";

export type Item = [productId: string, amount: number];

/** What the cart stores while a checkout runs. */
export interface Pending {
  orderId: string;
  cartId: string;
  userId: string;
  items: Item[];
}

export interface Completed {
  orderId: string;
  total: number;
  productIds: string[];
}

/** Fan-out and fan-in (steps 2 and 3); answers the total, or the first failure after compensating. */
export async function reserve(env: Env, pending: Pending, trace?: TraceContext): Promise<Outcome<number>> {
  const answers = await Promise.allSettled(
    pending.items.map(([productId, amount]) => env.PRODUCTS.getByName(productId).retract(productId, pending.orderId, amount, trace)),
  );
  let total = 0;
  let failure: Outcome<number> | undefined;
  for (const [i, answer] of answers.entries()) {
    if (answer.status === "rejected") {
      // the system failed (not the business): put back whatever was taken, then report it
      await release(env, pending, trace);
      throw answer.reason;
    }
    if (answer.value.ok) total += answer.value.value.price * pending.items[i]![1];
    else failure ??= answer.value;
  }
  if (failure) {
    await release(env, pending, trace);
    return failure;
  }
  return ok(total);
}

/** Compensation: every product of the order puts back what the order holds (a no-op where it holds nothing). */
export async function release(env: Env, pending: Pending, trace?: TraceContext): Promise<void> {
  await Promise.all(pending.items.map(([productId]) => env.PRODUCTS.getByName(productId).release(productId, pending.orderId, trace)));
}

/** Step 4: the user pays; on any refusal all stock goes back. */
export async function charge(env: Env, pending: Pending, total: number, trace?: TraceContext): Promise<Outcome<null>> {
  const paid = await env.USERS.getByName(pending.userId).charge(pending.userId, pending.orderId, total, trace);
  if (!paid.ok) await release(env, pending, trace);
  return paid;
}

/**
 * Step 6, after the answer: each product of the order makes its hold final
 * and counts the others as bought with it.
 */
export async function settle(env: Env, completed: Pick<Completed, "orderId" | "productIds">): Promise<void> {
  const { orderId, productIds } = completed;
  await Promise.all(
    productIds.map((p) =>
      env.PRODUCTS.getByName(p).settle(
        orderId,
        productIds.filter((q) => q !== p),
      ),
    ),
  );
}
