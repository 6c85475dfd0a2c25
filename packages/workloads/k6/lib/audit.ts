/**
 * Audit records: console lines read back from k6's --console-output file
 * (with --log-format=json each line is `{"level":"info","msg":"<record as
 * JSON>",...}`) by the consistency audit (SPEC 2.3). A checkout logs two: one
 * right before its request, one with its answer. k6 ends an iteration still
 * running when a scenario's graceful stop runs out, in the middle of its
 * request; the target may still finish that checkout, and the first line is
 * how the audit knows of it.
 */
import type { CheckoutAnswer } from "./http.ts";

/** One checkout as the workload planned and saw it. */
export interface CheckoutAudit {
  sfbench: "audit";
  kind: "checkout";
  /** The iteration's random stream is rngFor(SEED, scenario, iteration). */
  scenario: string;
  iteration: number;
  /** The user, created for this checkout with exactly `credits` credits. */
  user: string;
  credits: number;
  cart: string;
  /** [productId, amount] per add-to-cart, distinct products. */
  items: [string, number][];
  /** sum(price x amount) from the seeded prices (productPrice). */
  expectedTotal: number;
  /** HTTP status of the checkout; 0 = failed or timed out (outcome unknown). */
  status: number;
  traceId: string;
  orderId?: string;
  total?: number;
  /** The error code of a non-200 answer, e.g. "insufficient-stock". */
  error?: string;
  /** contention only: the outcome the workload arranged. */
  planned?: "ok" | "insufficient-stock" | "insufficient-credits";
}

/** One product written by a seeding step (k6/seed.ts, contention's setup). */
export interface ProductAudit {
  sfbench: "audit";
  kind: "product";
  product: string;
  price: number;
  /** Stock before the seed (0 if the product did not exist) and stock the seed added. */
  stockBefore: number;
  stockAdded: number;
  /** how many tries the seed needed (a try whose answer was lost is followed by another) */
  tries: number;
}

/** A checkout about to be sent: its record without the answer. */
export type SentAudit = Omit<CheckoutAudit, "kind" | keyof CheckoutAnswer> & { kind: "checkout-sent" };

export type AuditRecord = CheckoutAudit | ProductAudit | SentAudit;

type WithoutTag<T> = T extends unknown ? Omit<T, "sfbench"> : never;

export function audit(record: WithoutTag<AuditRecord>): void {
  console.log(JSON.stringify({ sfbench: "audit", ...record }));
}

/** Logs the checkout as sent, sends it, logs it with its answer and returns the answer. */
export function auditedCheckout(planned: Omit<SentAudit, "sfbench" | "kind">, send: () => CheckoutAnswer): CheckoutAnswer {
  audit({ kind: "checkout-sent", ...planned });
  const answer = send();
  audit({ kind: "checkout", ...planned, ...answer });
  return answer;
}
