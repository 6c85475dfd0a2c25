/**
 * Cart: one Virtual Object per cart id holding its items and whether it was
 * checked out. addItem and checkout are exclusive handlers of the cart, so an
 * item can never slip into a cart while its checkout runs, and concurrent
 * checkouts of one cart run one after another (the second sees it checked out).
 */
import * as restate from "@restatedev/restate-sdk";
import type { ObjectContext, ObjectSharedContext } from "@restatedev/restate-sdk";
import { CART_STATE, type CartState } from "./cart-state.ts";
import { checkout, type CheckoutRequest, type CheckoutAnswer } from "./checkout.ts";
import { DONE, isRefusal, notFound, refuse, type Done, type Refusal } from "./outcome.ts";
import type { Product } from "./product.ts";
import { callOpts, traced } from "./trace.ts";

export interface CartView {
  items: { productId: string; amount: number }[];
  checkedOut: boolean;
}

export interface AddItem {
  productId: string;
  amount: number;
}

const ProductApi = { name: "Product" } as Product;

export const cart = restate.object({
  name: "Cart",
  handlers: {
    create: traced("cart", "create", async (ctx: ObjectContext): Promise<Done> => {
      ctx.set<CartState>(CART_STATE, { items: {}, checkedOut: false });
      return DONE;
    }),

    get: restate.handlers.object.shared(
      traced("cart", "get", async (ctx: ObjectSharedContext): Promise<CartView | Refusal> => {
        const state = await ctx.get<CartState>(CART_STATE);
        if (!state) return notFound("cart", ctx.key);
        const items = Object.keys(state.items)
          .sort()
          .map((productId) => ({ productId, amount: state.items[productId]! }));
        return { items, checkedOut: state.checkedOut };
      }),
    ),

    /** Amounts of the same product accumulate; the product must exist (asked from its object). */
    addItem: traced("cart", "addItem", async (ctx: ObjectContext, { productId, amount }: AddItem, span): Promise<Done | Refusal> => {
      const state = await ctx.get<CartState>(CART_STATE);
      if (!state) return notFound("cart", ctx.key);
      const found = await ctx.objectClient(ProductApi, productId).get(undefined, callOpts(span));
      if (isRefusal(found)) return found;
      if (state.checkedOut) return refuse("cart-checked-out", `cart ${JSON.stringify(ctx.key)} is already checked out`);
      ctx.set<CartState>(CART_STATE, { ...state, items: { ...state.items, [productId]: (state.items[productId] ?? 0) + amount } });
      return DONE;
    }),

    checkout: traced("cart", "checkout", async (ctx: ObjectContext, request: CheckoutRequest, span): Promise<CheckoutAnswer> => checkout(ctx, request, span)),
  },
});

export type Cart = typeof cart;
