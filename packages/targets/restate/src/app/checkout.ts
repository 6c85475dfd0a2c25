/**
 * Checkout (SPEC 2.1) as a saga run by the cart's exclusive `checkout`
 * handler. Every call below is a durable step: Restate journals it, and after
 * a crash the handler is replayed from the journal, so a step that completed
 * is never repeated and one that did not is resumed; compensations are
 * journaled the same way, so they run exactly once too.
 *
 * 1. read the cart (its own state: the handler holds the cart's lock)
 * 2. fan-out: every product retracts its amount (concurrent calls to the
 *    product objects), 3. fan-in: all answers; if one lacked stock, put back
 *    the stock of those that retracted and answer insufficient-stock
 * 4. charge the user the total; if it cannot pay, put back all stock
 * 5. record the order, mark the cart checked out, answer
 * 6. one-way messages to the co-purchase objects, delivered after the answer
 *
 * The gateway calls it with the order id as Restate idempotency key, so a
 * retried request attaches to the same invocation instead of charging twice.
 */
import { RestatePromise, type ObjectContext } from "@restatedev/restate-sdk";
import { CART_STATE, type CartState } from "./cart-state.ts";
import type { CoPurchase } from "./co-purchase.ts";
import { isRefusal, notFound, refuse, type Refusal } from "./outcome.ts";
import type { Order } from "./order.ts";
import type { Product } from "./product.ts";
import { callOpts, sendOpts, type HandlerSpan } from "./trace.ts";
import type { User } from "./user.ts";

export interface CheckoutRequest {
  userId: string;
  orderId: string;
}

export type CheckoutAnswer = { orderId: string; total: number } | Refusal;

const ProductApi = { name: "Product" } as Product;
const UserApi = { name: "User" } as User;
const OrderApi = { name: "Order" } as Order;
const CoPurchaseApi = { name: "CoPurchase" } as CoPurchase;

export async function checkout(ctx: ObjectContext, { userId, orderId }: CheckoutRequest, span: HandlerSpan | undefined): Promise<CheckoutAnswer> {
  const cart = await ctx.get<CartState>(CART_STATE);
  if (!cart) return notFound("cart", ctx.key);
  if (cart.checkedOut) return refuse("cart-checked-out", `cart ${JSON.stringify(ctx.key)} is already checked out`);
  const items = Object.entries(cart.items);
  if (items.length === 0) return refuse("empty-cart", `cart ${JSON.stringify(ctx.key)} is empty`);

  // Compensations of the steps done so far, run in reverse when a later step refuses.
  const compensations: (() => RestatePromise<unknown>)[] = [];
  const compensate = async () => {
    await RestatePromise.all(compensations.reverse().map((undo) => undo()));
  };

  const answers = await RestatePromise.all(items.map(([productId, amount]) => ctx.objectClient(ProductApi, productId).reserve(amount, callOpts(span))));
  let total = 0;
  let refusal: Refusal | undefined;
  answers.forEach((answer, i) => {
    const [productId, amount] = items[i]!;
    if (isRefusal(answer)) refusal ??= answer;
    else {
      total += answer.price * amount;
      compensations.push(() => ctx.objectClient(ProductApi, productId).release(amount, callOpts(span)));
    }
  });
  if (refusal) {
    await compensate();
    return refusal;
  }

  const charged = await ctx.objectClient(UserApi, userId).charge(total, callOpts(span));
  if (isRefusal(charged)) {
    await compensate();
    return charged;
  }

  await ctx.objectClient(OrderApi, orderId).create({ cartId: ctx.key, userId, status: "completed", total }, callOpts(span));
  ctx.set<CartState>(CART_STATE, { ...cart, checkedOut: true, orderId });

  // Step 6: durable one-way messages, processed by the co-purchase objects after this handler returns.
  if (items.length > 1) {
    const ids = items.map(([productId]) => productId);
    for (const p of ids)
      ctx.objectSendClient(CoPurchaseApi, p).add(
        ids.filter((q) => q !== p),
        sendOpts(span),
      );
  }
  return { orderId, total };
}
