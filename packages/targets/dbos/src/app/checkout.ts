/**
 * Checkout (SPEC 2.1) as a DBOS workflow of steps, each step one PostgreSQL
 * transaction (steps.ts), as DBOS's programming guide composes a workflow:
 *
 *   claim the cart (read its items, check the user, mark the cart as held by
 *   this workflow) -> retract stock, one step per product, concurrently
 *   (fan-out / fan-in) -> charge the user -> record the order and mark the
 *   cart checked out -> start the co-purchase workflow.
 *
 * A step that finds a product lacking stock or the user lacking credits does
 * not throw: the workflow runs the compensation step (put back what was
 * retracted, release the cart) and returns the refusal, so a 409 leaves the
 * state as it was. DBOS checkpoints every step's output, so a workflow
 * interrupted by a crash resumes from its last checkpoint on restart
 * (DBOS.launch() recovers it) and runs each transaction once: the order
 * completes or is compensated, never both, never twice.
 *
 * The workflow id is the order id. The gateway picks it, so a resubmission
 * under the same id (DBOS.startWorkflow with that workflowID) returns the
 * first execution's outcome instead of charging again.
 */
import { DBOS } from "@dbos-inc/dbos-sdk";
import type { CheckoutResult } from "@sfbench/core";
import { wallMicros } from "@sfbench/core/span";
import { recordFunctionSpans, traced, type AppErrorCode, type Db, type Trace, type Tx } from "@sfbench/shop-pg";
import { txStep } from "./steps.ts";

const INT8_MAX = 2n ** 63n - 1n;

interface Item {
  productId: string;
  amount: number;
}

/** A checkout that answers with an error: not-found (404) or a SPEC 2.1 conflict (409). */
export interface Refusal {
  refused: AppErrorCode;
  message: string;
}

/** What the workflow returns, recorded by DBOS as its output (JSON). */
export type CheckoutOutcome = ({ ok: true } & CheckoutResult) | ({ ok: false } & Refusal);

type Claim = { items: Item[] } | { heldBy: string } | Refusal;

const refuse = (refused: AppErrorCode, message: string): Refusal => ({ refused, message });

/** Step 1: lock the cart row, check the user, take the cart for this workflow and read its items. */
async function claimCart(tx: Tx, workflowId: string, cartId: string, userId: string): Promise<Claim> {
  const cart = await tx.query<{ checked_out: boolean; checkout_by: string | null; user_found: boolean }>({
    name: "checkout-claim-cart",
    text: `SELECT c.checked_out, c.checkout_by, EXISTS (SELECT 1 FROM users u WHERE u.id = $2) AS user_found
           FROM carts c WHERE c.id = $1 FOR NO KEY UPDATE OF c`,
    values: [cartId, userId],
  });
  const row = cart.rows[0];
  if (!row) return refuse("not-found", `cart ${JSON.stringify(cartId)} not found`);
  if (!row.user_found) return refuse("not-found", `user ${JSON.stringify(userId)} not found`);
  if (row.checked_out) return refuse("cart-checked-out", `cart ${JSON.stringify(cartId)} is already checked out`);
  if (row.checkout_by !== null && row.checkout_by !== workflowId) return { heldBy: row.checkout_by };
  const items = await tx.query<{ product_id: string; amount: number }>({
    name: "checkout-read-items",
    text: "SELECT product_id, amount FROM cart_items WHERE cart_id = $1 ORDER BY product_id",
    values: [cartId],
  });
  if (items.rows.length === 0) return refuse("empty-cart", `cart ${JSON.stringify(cartId)} is empty`);
  await tx.query({ name: "checkout-hold-cart", text: "UPDATE carts SET checkout_by = $2 WHERE id = $1", values: [cartId, workflowId] });
  return { items: items.rows.map((r) => ({ productId: r.product_id, amount: r.amount })) };
}

/** Step 2, one per product: retract the amount atomically or not at all; answers the price, or null when stock lacks. */
async function retractStock(tx: Tx, { productId, amount }: Item): Promise<{ price: number } | null> {
  const { rows } = await tx.query<{ price: number }>({
    name: "checkout-retract-stock",
    text: "UPDATE products SET stock = stock - $2 WHERE id = $1 AND stock >= $2 RETURNING price",
    values: [productId, amount],
  });
  return rows[0] ? { price: rows[0].price } : null;
}

/** Step 4: retract the total (a decimal string: it may pass 2^53) from the user; false when credits lack. */
async function retractCredits(tx: Tx, userId: string, total: string): Promise<boolean> {
  if (BigInt(total) > INT8_MAX) return false;
  const { rowCount } = await tx.query({
    name: "checkout-retract-credits",
    text: "UPDATE users SET credits = credits - $2 WHERE id = $1 AND credits >= $2",
    values: [userId, total],
  });
  return rowCount === 1;
}

/** The compensation: put back the stock of the products that retracted it and release the cart. */
async function compensate(tx: Tx, workflowId: string, cartId: string, retracted: readonly Item[]): Promise<true> {
  if (retracted.length > 0) {
    // In id order (the items are), like every other multi-row writer, so compensations do not deadlock.
    await tx.query({
      name: "checkout-put-back-stock",
      text: `UPDATE products AS p SET stock = p.stock + i.amount
             FROM unnest($1::text[], $2::bigint[]) AS i (id, amount) WHERE p.id = i.id`,
      values: [retracted.map((i) => i.productId), retracted.map((i) => i.amount)],
    });
  }
  await tx.query({
    name: "checkout-release-cart",
    text: "UPDATE carts SET checkout_by = NULL WHERE id = $1 AND checkout_by = $2",
    values: [cartId, workflowId],
  });
  return true;
}

/** Step 5: mark the cart checked out (releasing it) and record the completed order. */
async function recordOrder(tx: Tx, orderId: string, cartId: string, userId: string, total: string): Promise<true> {
  await tx.query({
    name: "checkout-record-order",
    text: `WITH cart AS (UPDATE carts SET checked_out = true, checkout_by = NULL WHERE id = $2)
           INSERT INTO orders (id, cart_id, user_id, status, total) VALUES ($1, $2, $3, 'completed', $4)`,
    values: [orderId, cartId, userId, total],
  });
  return true;
}

/**
 * Spans of a traced checkout, by workflow id. Only the process that took the
 * request traces it; a workflow recovered after a restart runs untraced.
 */
const traces = new Map<string, Trace>();

export type CheckoutWorkflow = (cartId: string, userId: string) => Promise<CheckoutOutcome>;

/**
 * Registers the checkout workflow with DBOS (before DBOS.launch(), which
 * recovers interrupted ones) and returns a function that runs one checkout.
 * `coPurchase` is the registered co-purchase workflow, started as the last step.
 */
export function registerCheckout(db: Db, coPurchase: (productIds: string[]) => Promise<void>) {
  async function checkoutWorkflow(cartId: string, userId: string): Promise<CheckoutOutcome> {
    const orderId = DBOS.workflowID!;
    const trace = traces.get(orderId);

    let items: Item[];
    let awaited: string | undefined;
    for (;;) {
      const claim = await traced(trace, "cart", "read", cartId, () => txStep(db, "claimCart", (tx) => claimCart(tx, orderId, cartId, userId)));
      if ("refused" in claim) return { ok: false, ...claim };
      if ("items" in claim) {
        items = claim.items;
        break;
      }
      // A checkout that ended releases the cart in its last step; only one that failed in the system keeps it.
      if (claim.heldBy === awaited)
        throw new Error(`cart ${JSON.stringify(cartId)} is still held by checkout ${claim.heldBy}, which ended without releasing it`);
      // Another checkout holds the cart: wait for it to end (its outcome does not matter here), then read the cart again.
      awaited = claim.heldBy;
      await DBOS.getResult(claim.heldBy).catch(() => null);
    }

    // Fan-out: every product retracts its amount in its own step; the steps run concurrently.
    const answers = await Promise.all(
      items.map((item) => traced(trace, "product", "retractStock", item.productId, () => txStep(db, "retractStock", (tx) => retractStock(tx, item)))),
    );
    // Fan-in.
    const retracted = items.filter((_, i) => answers[i] !== null);
    const putBack = () =>
      traced(
        trace,
        "product",
        "putBackStock",
        retracted.map((i) => i.productId),
        () => txStep(db, "compensate", (tx) => compensate(tx, orderId, cartId, retracted)),
      );
    if (retracted.length < items.length) {
      await putBack();
      const lacking = items.filter((_, i) => answers[i] === null).map((i) => i.productId);
      return { ok: false, refused: "insufficient-stock", message: `not enough stock of ${lacking.join(", ")}` };
    }

    const total = items.reduce((sum, item, i) => sum + BigInt(answers[i]!.price) * BigInt(item.amount), 0n).toString();
    const charged = await traced(trace, "user", "retractCredits", userId, () => txStep(db, "retractCredits", (tx) => retractCredits(tx, userId, total)));
    if (!charged) {
      await putBack();
      return { ok: false, refused: "insufficient-credits", message: `user ${JSON.stringify(userId)} has fewer than ${total} credits` };
    }

    const orderStart = trace ? wallMicros() : 0;
    await txStep(db, "recordOrder", (tx) => recordOrder(tx, orderId, cartId, userId, total));
    if (trace) recordFunctionSpans(trace, "order", "create", [orderId], orderStart, wallMicros());

    // Step 6 as a workflow of its own: DBOS records its start here, so a crash after this
    // point still counts the order once; it runs in the background while the answer goes out.
    await DBOS.startWorkflow(coPurchase, { workflowID: `${orderId}:co-purchase` })(items.map((i) => i.productId));
    return { ok: true, orderId, total: Number(total) };
  }

  const workflow = DBOS.registerWorkflow(checkoutWorkflow, { name: "checkout" });

  /** Runs one checkout under the order id `orderId` and waits for its outcome. */
  return async function checkout(orderId: string, cartId: string, userId: string, trace?: Trace): Promise<CheckoutOutcome> {
    if (trace) traces.set(orderId, trace);
    try {
      const handle = await DBOS.startWorkflow(workflow, { workflowID: orderId })(cartId, userId);
      return await handle.getResult();
    } finally {
      if (trace) traces.delete(orderId);
    }
  };
}
