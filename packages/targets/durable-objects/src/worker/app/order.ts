/**
 * One Durable Object per order, written once by the checkout that completed
 * it. Only completed orders exist: a 409 checkout records nothing.
 */
import { DurableObject } from "cloudflare:workers";
import type { Env } from "./env.ts";
import { openSpan, type TraceContext } from "./trace.ts";

export interface OrderState {
  id: string;
  cartId: string;
  userId: string;
  status: "completed";
  total: number;
}

export class OrderObject extends DurableObject<Env> {
  record(order: OrderState, trace?: TraceContext): void {
    const span = openSpan(trace, "order", "create", order.id);
    this.ctx.storage.kv.put("order", order);
    span?.end();
  }

  read(key: string, trace?: TraceContext): OrderState | null {
    const span = openSpan(trace, "order", "getOrder", key);
    const order = this.ctx.storage.kv.get<OrderState>("order");
    span?.end();
    return order ?? null;
  }
}
