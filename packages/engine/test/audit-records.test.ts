import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readAuditRecords } from "../src/audit/records.ts";

/** A line as k6 --log-format=json writes a console.log of the record. */
const line = (record: object) => JSON.stringify({ level: "info", msg: JSON.stringify({ sfbench: "audit", ...record }), source: "console" });
const plan = (cart: string) => ({ scenario: "step_0", iteration: 0, user: `u-${cart}`, credits: 100, cart, items: [["p-1", 2]], expectedTotal: 8 });

describe("audit records of a k6 console file", () => {
  it("give every checkout sent: with its answer, or as unanswered (status 0) when k6 cut it before the answer", async () => {
    const file = join(mkdtempSync(join(tmpdir(), "sfbench-records-")), "console.log");
    writeFileSync(
      file,
      [
        line({ kind: "checkout-sent", ...plan("a") }),
        line({ kind: "checkout-sent", ...plan("b") }),
        line({ kind: "checkout", ...plan("a"), status: 200, traceId: "t", orderId: "o", total: 8 }),
        line({ kind: "product", product: "p-1", price: 4, stockBefore: 0, stockAdded: 10 }),
        "a line of k6's own",
      ].join("\n") + "\n",
    );
    const { checkouts, products } = await readAuditRecords(file);
    expect(checkouts).toEqual([
      { sfbench: "audit", kind: "checkout", user: "u-a", credits: 100, cart: "a", items: [["p-1", 2]], status: 200, traceId: "t", orderId: "o", total: 8 },
      { sfbench: "audit", kind: "checkout", user: "u-b", credits: 100, cart: "b", items: [["p-1", 2]], status: 0 },
    ]);
    expect(products).toHaveLength(1);
  });
});
