/**
 * "Frequently bought together" counts (SPEC 2.1 step 6) as a DBOS workflow of
 * one step. The checkout workflow starts it (DBOS.startWorkflow, id
 * `<order id>:co-purchase`) as its last action: DBOS has recorded the start
 * before the checkout answers, and the counting runs in the background, off
 * the latency path. A crash before it commits leaves it PENDING and
 * DBOS.launch() runs it again on restart; the step's completion record
 * (steps.ts) makes that count the order once.
 */
import { DBOS } from "@dbos-inc/dbos-sdk";
import type { Db } from "@sfbench/shop-pg";
import { txStep } from "./steps.ts";

/** Adds 1 to count[p][q] and count[q][p] for every pair of distinct products of one order. */
async function addPairs(db: Db, productIds: readonly string[]): Promise<true> {
  const ps: string[] = [];
  const qs: string[] = [];
  for (const p of productIds) {
    for (const q of productIds) {
      if (p === q) continue;
      ps.push(p);
      qs.push(q);
    }
  }
  if (ps.length === 0) return true;
  return txStep<true>(db, "addPairs", async (tx) => {
    // ORDER BY: rows are locked in key order, so concurrent orders over the same products do not deadlock.
    await tx.query({
      name: "co-purchase-add",
      text: `INSERT INTO co_purchase (p, q, count)
             SELECT p, q, 1 FROM unnest($1::text[], $2::text[]) AS b (p, q) ORDER BY p COLLATE "C", q COLLATE "C"
             ON CONFLICT (p, q) DO UPDATE SET count = co_purchase.count + 1`,
      values: [ps, qs],
    });
    return true;
  });
}

/** Registers the co-purchase workflow (before DBOS.launch()) and returns it. */
export function registerCoPurchase(db: Db): (productIds: string[]) => Promise<void> {
  return DBOS.registerWorkflow(
    async (productIds: string[]) => {
      await addPairs(db, productIds);
    },
    { name: "coPurchase" },
  );
}
