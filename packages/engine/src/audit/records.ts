/**
 * Audit records: what each checkout iteration did, as the k6 scripts log it
 * (one JSON object per console line, `{"sfbench":"audit","kind":"checkout",...}`).
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

const AuditRecord = z.discriminatedUnion("kind", [CheckoutRecord, ProductRecord]);
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
  for await (const line of createInterface({ input, crlfDelay: Infinity })) {
    const r = parseAuditLine(line);
    if (r?.kind === "checkout") out.checkouts.push(r);
    else if (r?.kind === "product") out.products.push(r);
  }
  return out;
}
