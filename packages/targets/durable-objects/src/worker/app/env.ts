/**
 * The bindings the launcher gives the Worker and every Durable Object: one
 * namespace per entity class, and whether span lines are written.
 */
import type { CartObject } from "./cart.ts";
import type { MicroBigObject, MicroDivideObject, MicroDriverObject, MicroObject, MicroPingObject, MicroPongObject } from "./micro.ts";
import type { OrderObject } from "./order.ts";
import type { ProductObject } from "./product.ts";
import type { UserObject } from "./user.ts";

export interface Env {
  PRODUCTS: DurableObjectNamespace<ProductObject>;
  USERS: DurableObjectNamespace<UserObject>;
  CARTS: DurableObjectNamespace<CartObject>;
  ORDERS: DurableObjectNamespace<OrderObject>;
  /** SPEC 8 microbenchmarks (micro.ts) */
  MICRO: DurableObjectNamespace<MicroObject>;
  MICRO_DRIVER: DurableObjectNamespace<MicroDriverObject>;
  MICRO_PING: DurableObjectNamespace<MicroPingObject>;
  MICRO_PONG: DurableObjectNamespace<MicroPongObject>;
  MICRO_DIVIDE: DurableObjectNamespace<MicroDivideObject>;
  MICRO_BIG: DurableObjectNamespace<MicroBigObject>;
  /** "1" writes SPEC 3 span lines to stdout */
  SFBENCH_TRACE: string;
}

/** A business outcome that is not a success; the gateway maps it to 404/409. */
export type Failure =
  | "not-found"
  | "empty-cart"
  | "cart-checked-out"
  | "insufficient-stock"
  | "insufficient-credits"
  | "too-large"
  /** a checkout step of an order that recovery abandoned (only after a system failure) */
  | "aborted";

export type Outcome<T> = { ok: true; value: T } | { ok: false; error: Failure; message: string };

export const ok = <T>(value: T): Outcome<T> => ({ ok: true, value });
export const fail = <T = never>(error: Failure, message: string): Outcome<T> => ({ ok: false, error, message });
