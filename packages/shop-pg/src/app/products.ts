/** Products: price and stock. */
import { randomUUID } from "node:crypto";
import type { Product } from "@sfbench/core";
import type { Db } from "./db.ts";
import { notFound } from "./errors.ts";
import { traced, type Trace } from "./trace.ts";

export interface ProductFields {
  price?: number | undefined;
  stock?: number | undefined;
}

export async function createProduct(db: Db, { price = 0, stock = 0 }: ProductFields, trace?: Trace): Promise<string> {
  const id = randomUUID();
  await traced(trace, "product", "create", id, () =>
    db.query({
      name: "product-create",
      text: "INSERT INTO products (id, price, stock) VALUES ($1, $2, $3)",
      values: [id, price, stock],
    }),
  );
  return id;
}

/** PATCH /products/{id}: creates the product if missing; price is set, stock is added. */
export async function upsertProduct(db: Db, id: string, { price, stock }: ProductFields, trace?: Trace): Promise<string> {
  await traced(trace, "product", "upsert", id, () =>
    db.query({
      name: "product-upsert",
      text: `INSERT INTO products (id, price, stock) VALUES ($1, COALESCE($2::integer, 0), COALESCE($3::bigint, 0))
             ON CONFLICT (id) DO UPDATE
             SET price = COALESCE($2::integer, products.price), stock = products.stock + COALESCE($3::bigint, 0)`,
      values: [id, price ?? null, stock ?? null],
    }),
  );
  return id;
}

export async function getProduct(db: Db, id: string, trace?: Trace): Promise<Product> {
  const { rows } = await traced(trace, "product", "get", id, () =>
    db.query<Product>({ name: "product-get", text: "SELECT id, price, stock FROM products WHERE id = $1", values: [id] }),
  );
  const product = rows[0];
  if (!product) throw notFound("product", id);
  return product;
}
