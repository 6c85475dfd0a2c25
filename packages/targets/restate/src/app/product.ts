/**
 * Product: one Virtual Object per product id holding its price and stock.
 * Exclusive handlers (create, upsert, reserve, release) run one at a time per
 * product, so stock is retracted atomically and never goes negative; `get`
 * is shared and reads the last committed state without waiting for the lock.
 */
import * as restate from "@restatedev/restate-sdk";
import type { ObjectContext, ObjectSharedContext } from "@restatedev/restate-sdk";
import { DONE, notFound, refuse, type Done, type Refusal } from "./outcome.ts";
import { traced } from "./trace.ts";

export interface ProductState {
  price: number;
  stock: number;
}

export interface ProductFields {
  price?: number | undefined;
  stock?: number | undefined;
}

/** What a product answers the checkout that asked it to retract stock. */
export interface Reserved {
  price: number;
}

const STATE = "product";

export const product = restate.object({
  name: "Product",
  handlers: {
    /** POST /products: the gateway chose a fresh id. */
    create: traced("product", "create", async (ctx: ObjectContext, fields: ProductFields): Promise<Done> => {
      ctx.set<ProductState>(STATE, { price: fields.price ?? 0, stock: fields.stock ?? 0 });
      return DONE;
    }),

    /** PATCH /products/{id}: creates the product if missing; price is set, stock is added. */
    upsert: traced("product", "upsert", async (ctx: ObjectContext, fields: ProductFields): Promise<Done> => {
      const state = (await ctx.get<ProductState>(STATE)) ?? { price: 0, stock: 0 };
      ctx.set<ProductState>(STATE, { price: fields.price ?? state.price, stock: state.stock + (fields.stock ?? 0) });
      return DONE;
    }),

    get: restate.handlers.object.shared(
      traced("product", "get", async (ctx: ObjectSharedContext): Promise<ProductState | Refusal> => {
        return (await ctx.get<ProductState>(STATE)) ?? notFound("product", ctx.key);
      }),
    ),

    /** Checkout's fan-out: retract `amount` atomically or not at all, and answer the price. */
    reserve: traced("product", "retractStock", async (ctx: ObjectContext, amount: number): Promise<Reserved | Refusal> => {
      const state = await ctx.get<ProductState>(STATE);
      if (!state) return notFound("product", ctx.key);
      if (state.stock < amount) return refuse("insufficient-stock", `not enough stock of ${ctx.key}: ${state.stock} < ${amount}`);
      ctx.set<ProductState>(STATE, { ...state, stock: state.stock - amount });
      return { price: state.price };
    }),

    /** Checkout's compensation: put back what `reserve` retracted. */
    release: traced("product", "restoreStock", async (ctx: ObjectContext, amount: number): Promise<Done> => {
      const state = await ctx.get<ProductState>(STATE);
      if (state) ctx.set<ProductState>(STATE, { ...state, stock: state.stock + amount });
      return DONE;
    }),
  },
});

export type Product = typeof product;
