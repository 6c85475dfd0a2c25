/**
 * Shopping carts and their items. What differs between the targets is when a
 * cart refuses an item: once checked out, and in a target whose checkout
 * holds the cart for a while before it completes (a workflow that read the
 * items in its first step), also while it is held (`CartHold`).
 */
import { randomUUID } from "node:crypto";
import type { Cart } from "@sfbench/core";
import type { Db } from "./db.ts";
import { AppError, notFound } from "./errors.ts";
import { traced, type Trace } from "./trace.ts";

export async function createCart(db: Db, trace?: Trace): Promise<string> {
  const id = randomUUID();
  await traced(trace, "cart", "create", id, () => db.query({ name: "cart-create", text: "INSERT INTO carts (id) VALUES ($1)", values: [id] }));
  return id;
}

interface CartRow {
  checked_out: boolean;
  product_id: string | null;
  amount: number | null;
}

export async function getCart(db: Db, id: string, trace?: Trace): Promise<Cart> {
  const { rows } = await traced(trace, "cart", "get", id, () =>
    db.query<CartRow>({
      name: "cart-get",
      text: `SELECT c.checked_out, i.product_id, i.amount
             FROM carts c LEFT JOIN cart_items i ON i.cart_id = c.id
             WHERE c.id = $1 ORDER BY i.product_id`,
      values: [id],
    }),
  );
  const first = rows[0];
  if (!first) throw notFound("cart", id);
  const items = rows.flatMap((r) => (r.product_id === null || r.amount === null ? [] : [{ productId: r.product_id, amount: r.amount }]));
  return { id, items, checkedOut: first.checked_out };
}

interface AddRow {
  checked_out: boolean | null;
  product_found: boolean;
}

/**
 * How a target's checkout holds a cart before it completes: `sql` is a
 * boolean expression over the carts row that is true while a checkout holds
 * it (a constant of the target's, never input), `says` what the refusal adds.
 */
export interface CartHold {
  sql: string;
  says: string;
}

/**
 * Adds `amount` of a product to a cart; amounts for the same product
 * accumulate. One statement: the cart row is share-locked, so an add waits for
 * a checkout of the same cart (which holds the row lock) and then sees it
 * checked out or held, and never slips an item into a cart after its checkout
 * read it: such an item would end up in a checked-out cart without being paid for.
 */
export async function addToCart(db: Db, cartId: string, productId: string, amount: number, trace?: Trace, hold?: CartHold): Promise<void> {
  const { rows } = await traced(trace, "cart", "addItem", cartId, () =>
    db.query<AddRow>({
      name: "cart-add-item",
      text: `WITH cart AS (SELECT ${hold ? `checked_out OR (${hold.sql})` : "checked_out"} AS checked_out FROM carts WHERE id = $1 FOR SHARE),
                  product AS (SELECT id FROM products WHERE id = $2),
                  added AS (
                    INSERT INTO cart_items (cart_id, product_id, amount)
                    SELECT $1, product.id, $3 FROM cart, product WHERE NOT cart.checked_out
                    ON CONFLICT (cart_id, product_id) DO UPDATE SET amount = cart_items.amount + excluded.amount
                    RETURNING 1)
             SELECT (SELECT checked_out FROM cart) AS checked_out,
                    EXISTS (SELECT 1 FROM product) AS product_found,
                    (SELECT count(*) FROM added) AS added`,
      values: [cartId, productId, amount],
    }),
  );
  const row = rows[0];
  if (!row || row.checked_out === null) throw notFound("cart", cartId);
  if (!row.product_found) throw notFound("product", productId);
  if (row.checked_out) throw new AppError("cart-checked-out", `cart ${JSON.stringify(cartId)} is already checked out${hold ? ` ${hold.says}` : ""}`);
}
