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
  planned: z.string().optional(),
});
export type CheckoutRecord = z.infer<typeof CheckoutRecord>;

/** One audit record from a console line: raw JSON, or k6's `--log-format=json` wrapper `{"msg": "..."}`. */
export function parseAuditLine(line: string): CheckoutRecord | undefined {
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
  const r = CheckoutRecord.safeParse(value);
  return r.success ? r.data : undefined;
}

export async function readAuditRecords(file: string): Promise<CheckoutRecord[]> {
  const out: CheckoutRecord[] = [];
  const lines = createInterface({ input: createReadStream(file), crlfDelay: Infinity });
  for await (const line of lines) {
    const r = parseAuditLine(line);
    if (r) out.push(r);
  }
  return out;
}
