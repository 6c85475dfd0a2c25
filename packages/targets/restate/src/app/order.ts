/** Order: one Virtual Object per order id, written once by the checkout that completed it. */
import * as restate from "@restatedev/restate-sdk";
import type { ObjectContext, ObjectSharedContext } from "@restatedev/restate-sdk";
import { DONE, notFound, type Done, type Refusal } from "./outcome.ts";
import { traced } from "./trace.ts";

export interface OrderState {
  cartId: string;
  userId: string;
  status: "completed" | "failed";
  total: number;
  failure?: string;
}

const STATE = "order";

export const order = restate.object({
  name: "Order",
  handlers: {
    create: traced("order", "create", async (ctx: ObjectContext, state: OrderState): Promise<Done> => {
      ctx.set<OrderState>(STATE, state);
      return DONE;
    }),

    get: restate.handlers.object.shared(
      traced("order", "get", async (ctx: ObjectSharedContext): Promise<OrderState | Refusal> => {
        return (await ctx.get<OrderState>(STATE)) ?? notFound("order", ctx.key);
      }),
    ),
  },
});

export type Order = typeof order;
