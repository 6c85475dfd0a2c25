/**
 * One Durable Object per user: credits, and the charge of every order the
 * user paid (charge:<order> = total), so that charging is idempotent per
 * order. A cart recovering from a crash asks resolve(order): the total if
 * the order was paid, else the order is voided (charge:<order> = "void") so
 * that a charge still on its way is refused.
 */
import { DurableObject } from "cloudflare:workers";
import { fail, ok, type Env, type Outcome } from "./env.ts";
import { openSpan, type TraceContext } from "./trace.ts";

export interface UserState {
  credits: number;
}

const CHARGE = "charge:";

export class UserObject extends DurableObject<Env> {
  private get kv() {
    return this.ctx.storage.kv;
  }

  create(key: string, credits: number, trace?: TraceContext): void {
    const span = openSpan(trace, "user", "createUser", key);
    this.kv.put("user", { credits } satisfies UserState);
    span?.end();
  }

  read(key: string, trace?: TraceContext): UserState | null {
    const span = openSpan(trace, "user", "getUser", key);
    const state = this.kv.get<UserState>("user");
    span?.end();
    return state ?? null;
  }

  /** false when the user does not exist */
  addCredits(key: string, credits: number, trace?: TraceContext): boolean {
    const span = openSpan(trace, "user", "addCredits", key);
    try {
      const state = this.kv.get<UserState>("user");
      if (!state) return false;
      this.kv.put("user", { credits: state.credits + credits } satisfies UserState);
      return true;
    } finally {
      span?.end();
    }
  }

  /** Checkout step 4: takes `total` from the credits, or nothing. Charging the same order again changes nothing. */
  charge(key: string, orderId: string, total: number, trace?: TraceContext): Outcome<null> {
    const span = openSpan(trace, "user", "retractCredits", key);
    try {
      const state = this.kv.get<UserState>("user");
      if (!state) return fail("not-found", `user ${key} does not exist`);
      const earlier = this.kv.get<number | "void">(CHARGE + orderId);
      if (earlier === "void") return fail("aborted", `order ${orderId} was abandoned after a failure and voided`);
      if (earlier !== undefined) return ok(null);
      if (state.credits < total) return fail("insufficient-credits", `user ${key} has ${state.credits} credits, the order costs ${total}`);
      this.kv.put("user", { credits: state.credits - total } satisfies UserState);
      this.kv.put(CHARGE + orderId, total);
      return ok(null);
    } finally {
      span?.end();
    }
  }

  /** Recovery: the total the order was charged, or null after voiding it (a later charge of it is refused). */
  resolve(orderId: string): number | null {
    const earlier = this.kv.get<number | "void">(CHARGE + orderId);
    if (typeof earlier === "number") return earlier;
    this.kv.put(CHARGE + orderId, "void");
    return null;
  }
}
