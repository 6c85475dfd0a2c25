/** Orders, as recorded by checkout. */
import type { Order } from "@sfbench/core";
import type { Db } from "./db.ts";
import { notFound } from "./errors.ts";
import { traced, type Trace } from "./trace.ts";

interface OrderRow {
  id: string;
  cart_id: string;
  user_id: string;
  status: Order["status"];
  total: number;
  failure: string | null;
}

export async function getOrder(db: Db, id: string, trace?: Trace): Promise<Order> {
  const { rows } = await traced(trace, "order", "get", id, () =>
    db.query<OrderRow>({
      name: "order-get",
      text: "SELECT id, cart_id, user_id, status, total, failure FROM orders WHERE id = $1",
      values: [id],
    }),
  );
  const row = rows[0];
  if (!row) throw notFound("order", id);
  return {
    id: row.id,
    cartId: row.cart_id,
    userId: row.user_id,
    status: row.status,
    total: row.total,
    ...(row.failure === null ? {} : { failure: row.failure }),
  };
}
