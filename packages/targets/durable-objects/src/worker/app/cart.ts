/**
 * One Durable Object per shopping cart; it also runs the checkout of its
 * cart (checkout.ts). A Durable Object handles one event at a time, but while
 * it awaits a call to another object the next event may start; so adding to
 * the cart and checking it out take the cart's lock: a checkout sees exactly
 * the items added before it, an add that waited for a successful checkout
 * answers cart-checked-out, and concurrent checkouts of one cart run one
 * after another (the cart is charged at most once).
 *
 * Storage:
 *   cart       {items: [[productId, amount]], checkedOut, orderId?}
 *   pending    the checkout in flight (checkout.ts Pending)
 *   unsettled  {orderId, productIds} of a completed order whose settle step
 *              has not confirmed yet
 */
import { DurableObject } from "cloudflare:workers";
import { charge, release, reserve, settle, type Completed, type Item, type Pending } from "./checkout.ts";
import { fail, ok, type Env, type Outcome } from "./env.ts";
import { openSpan, traced, type TraceContext } from "./trace.ts";

export interface CartState {
  items: Item[];
  checkedOut: boolean;
  orderId?: string;
}

interface Unsettled {
  orderId: string;
  productIds: string[];
}

/** Runs one task at a time, in arrival order. */
class Lock {
  private tail: Promise<unknown> = Promise.resolve();

  run<T>(task: () => Promise<T>): Promise<T> {
    const result = this.tail.then(task);
    this.tail = result.catch(() => undefined);
    return result;
  }
}

export class CartObject extends DurableObject<Env> {
  private readonly lock = new Lock();

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    // a checkout cut short (crash, restart) is finished or undone before the cart serves anything
    if (this.kv.get("pending") !== undefined || this.kv.get("unsettled") !== undefined) {
      void ctx.blockConcurrencyWhile(async () => {
        await this.resume();
        await this.settleHere();
      });
    }
  }

  private get kv() {
    return this.ctx.storage.kv;
  }

  private cart(): CartState | undefined {
    return this.kv.get<CartState>("cart");
  }

  create(key: string, trace?: TraceContext): void {
    const span = openSpan(trace, "cart", "createCart", key);
    this.kv.put("cart", { items: [], checkedOut: false } satisfies CartState);
    span?.end();
  }

  read(key: string, trace?: TraceContext): CartState | null {
    const span = openSpan(trace, "cart", "getCart", key);
    const cart = this.cart();
    span?.end();
    return cart ?? null;
  }

  /** Adds `amount` of a product (amounts accumulate); 404 for an unknown cart or product. */
  add(key: string, productId: string, amount: number, trace?: TraceContext): Promise<Outcome<null>> {
    return this.lock.run(() =>
      traced(trace, "cart", "addToCart", key, async (child) => {
        await this.resume(child);
        const cart = this.cart();
        if (!cart) return fail("not-found", `cart ${key} does not exist`);
        if (cart.checkedOut) return fail("cart-checked-out", `cart ${key} is checked out`);
        if (!(await this.env.PRODUCTS.getByName(productId).read(productId, child))) {
          return fail("not-found", `product ${productId} does not exist`);
        }
        const items = cart.items.map(([p, a]): Item => (p === productId ? [p, a + amount] : [p, a]));
        if (!items.some(([p]) => p === productId)) items.push([productId, amount]);
        this.kv.put("cart", { ...cart, items } satisfies CartState);
        return ok(null);
      }),
    );
  }

  /** SPEC 2.1 steps 1-5; step 6 is the caller's settle() after answering. */
  checkout(key: string, userId: string, trace?: TraceContext): Promise<Outcome<Completed>> {
    return this.lock.run(() =>
      traced(trace, "cart", "checkout", key, async (child) => {
        await this.resume(child);
        const cart = this.cart();
        if (!cart) return fail("not-found", `cart ${key} does not exist`);
        if (cart.checkedOut) return fail("cart-checked-out", `cart ${key} was checked out by order ${cart.orderId}`);
        if (cart.items.length === 0) return fail("empty-cart", `cart ${key} has no items`);

        const pending: Pending = { orderId: crypto.randomUUID(), cartId: key, userId, items: cart.items };
        // on disk before any product is asked (the output gate holds the calls until then)
        this.kv.put("pending", pending);
        const reserved = await reserve(this.env, pending, child);
        if (!reserved.ok) {
          this.kv.delete("pending");
          return reserved;
        }
        const paid = await charge(this.env, pending, reserved.value, child);
        if (!paid.ok) {
          this.kv.delete("pending");
          return paid;
        }
        return ok(await this.complete(pending, reserved.value, child));
      }),
    );
  }

  /** The settle step (run by the gateway after answering) confirmed: nothing left to resume for this order. */
  settled(orderId: string): void {
    if (this.kv.get<Unsettled>("unsettled")?.orderId === orderId) this.kv.delete("unsettled");
  }

  /** Step 6 run by the cart itself, for an order whose settle the gateway did not confirm. */
  private async settleHere(): Promise<void> {
    const unsettled = this.kv.get<Unsettled>("unsettled");
    if (!unsettled) return;
    await settle(this.env, unsettled);
    this.kv.delete("unsettled");
  }

  /** Step 5: record the order, then mark the cart (one commit with the end of the pending checkout). */
  private async complete(pending: Pending, total: number, trace?: TraceContext): Promise<Completed> {
    const { orderId, cartId, userId } = pending;
    await this.env.ORDERS.getByName(orderId).record({ id: orderId, cartId, userId, status: "completed", total }, trace);
    const productIds = pending.items.map(([p]) => p);
    this.kv.put("cart", { items: pending.items, checkedOut: true, orderId } satisfies CartState);
    this.kv.delete("pending");
    this.kv.put("unsettled", { orderId, productIds } satisfies Unsettled);
    return { orderId, total, productIds };
  }

  /**
   * Finishes a checkout that a crash (or a failed call) interrupted: if the
   * user paid for the order it is completed, otherwise the user voids the
   * order and every product puts back what it holds for it.
   */
  private async resume(trace?: TraceContext): Promise<void> {
    const pending = this.kv.get<Pending>("pending");
    if (!pending) return;
    const paid = await this.env.USERS.getByName(pending.userId).resolve(pending.orderId);
    console.error(`cart ${pending.cartId}: resuming checkout ${pending.orderId}: ${paid !== null ? "paid, completing it" : "not paid, undoing it"}`);
    if (paid !== null) {
      await this.complete(pending, paid, trace);
      await this.settleHere();
      return;
    }
    await release(this.env, pending, trace);
    this.kv.delete("pending");
  }
}
