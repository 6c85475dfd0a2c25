/**
 * Audit records: what each checkout iteration did, as the k6 scripts log it
 * (one JSON object per console line, `{"sfbench":"audit","kind":"checkout",...}`).
 *
 * A checkout is logged twice: as sent, right before its request, and with its
 * answer. An iteration that k6 ends at its hard stop (the scenario's graceful
 * stop ran out while the request was in flight) logs only the first line, yet
 * the target got the request and may finish it; such a checkout is read back
 * as one without an answer (status 0), which the audit resolves by reading its
 * cart, instead of stock and credits the audit cannot account for.
 */
import { createReadStream } from "node:fs";
import { createInterface } from "node:readline";
import { z } from "zod";

export const CheckoutRecord = z.object({
  sfbench: z.literal("audit"),
  kind: z.literal("checkout"),
  user: z.string(),
  /** credits added to the user by the workload */
  credits: z.number(),
  cart: z.string(),
  /** [product id, amount]; a product index is mapped to an id by the caller */
  items: z.array(z.tuple([z.union([z.string(), z.number()]), z.number()])),
  /** HTTP status of the checkout; 0 = no answer */
  status: z.number(),
  orderId: z.string().optional(),
  total: z.number().optional(),
  /** the error code of a non-200 answer's body (SPEC 2.1: empty-cart, insufficient-stock, ...) */
  error: z.string().optional(),
  planned: z.string().optional(),
  /** the trace id of the checkout request's traceparent (groups its spans per cart size) */
  traceId: z.string().optional(),
});
export type CheckoutRecord = z.infer<typeof CheckoutRecord>;

/** A product written by a seeding step (k6/seed.ts, contention's setup). */
export const ProductRecord = z.object({
  sfbench: z.literal("audit"),
  kind: z.literal("product"),
  product: z.string(),
  price: z.number(),
  stockBefore: z.number(),
  stockAdded: z.number(),
  /** how many tries the seed needed; absent in records of seeds that never tried twice */
  tries: z.number().optional(),
});
export type ProductRecord = z.infer<typeof ProductRecord>;

/** A checkout right before its request was sent: the record without the answer. */
const SentRecord = CheckoutRecord.omit({ status: true, orderId: true, total: true, error: true, traceId: true, kind: true }).extend({
  kind: z.literal("checkout-sent"),
});
type SentRecord = z.infer<typeof SentRecord>;

const AuditRecord = z.discriminatedUnion("kind", [CheckoutRecord, ProductRecord, SentRecord]);
export type AuditRecord = z.infer<typeof AuditRecord>;

/** One audit record from a console line: raw JSON, or k6's `--log-format=json` wrapper `{"msg": "..."}`. */
export function parseAuditLine(line: string): AuditRecord | undefined {
  if (!line.includes("sfbench")) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(line);
    if (value && typeof value === "object" && "msg" in value && typeof (value as { msg: unknown }).msg === "string") {
      value = JSON.parse((value as { msg: string }).msg);
    }
  } catch {
    return undefined;
  }
  const r = AuditRecord.safeParse(value);
  return r.success ? r.data : undefined;
}

export interface AuditRecords {
  /** every checkout sent: with its answer, or with status 0 if none was logged */
  checkouts: CheckoutRecord[];
  products: ProductRecord[];
}

/** Every audit record of a k6 console file (a missing file has none). */
export async function readAuditRecords(file: string): Promise<AuditRecords> {
  const out: AuditRecords = { checkouts: [], products: [] };
  let input;
  try {
    input = createReadStream(file);
    await new Promise((resolve, reject) => input!.once("open", resolve).once("error", reject));
  } catch {
    return out;
  }
  // a cart is checked out once per iteration: its sent line waits here for its answer line
  const unanswered = new Map<string, SentRecord>();
  for await (const line of createInterface({ input, crlfDelay: Infinity })) {
    const r = parseAuditLine(line);
    if (r?.kind === "checkout") {
      unanswered.delete(r.cart);
      out.checkouts.push(r);
    } else if (r?.kind === "checkout-sent") unanswered.set(r.cart, r);
    else if (r?.kind === "product") out.products.push(r);
  }
  for (const sent of unanswered.values()) out.checkouts.push({ ...sent, kind: "checkout", status: 0 });
  return out;
}
