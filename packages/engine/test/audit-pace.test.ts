/**
 * The audit's pace (target.json audit.readsPerSecond): reads start no faster
 * than the target asks, over the whole audit. Only lower bounds on time: a
 * loaded machine may be slower, never faster.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { audit, pacer } from "../src/audit/audit.ts";
import type { CheckoutRecord } from "../src/audit/records.ts";

describe("pacing the audit's reads", () => {
  it("spaces the starts of calls by 1/rate, and does not wait without a rate", async () => {
    const paced = pacer(100);
    const t0 = performance.now();
    for (let i = 0; i < 21; i++) await paced();
    expect(performance.now() - t0).toBeGreaterThanOrEqual(195); // 20 intervals of 10 ms
    const free = pacer(undefined);
    const t1 = performance.now();
    for (let i = 0; i < 1000; i++) await free();
    expect(performance.now() - t1).toBeLessThan(1000);
  });

  describe("a whole audit against a correct target", () => {
    const starts: number[] = [];
    let server: Server;
    let base: string;
    beforeAll(async () => {
      server = createServer((req, res) => {
        starts.push(performance.now());
        const url = req.url ?? "";
        const body = url.startsWith("/shopping-carts/")
          ? { checkedOut: true }
          : url.startsWith("/orders/")
            ? { status: "completed" }
            : url.startsWith("/users/")
              ? { credits: 90 }
              : url.includes("freq-items")
                ? []
                : { stock: 4 };
        res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(body));
      });
      await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
      base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    afterAll(() => new Promise((r) => server.close(r)));

    it("reads no faster than readsPerSecond and still finds nothing wrong", async () => {
      const records: CheckoutRecord[] = Array.from({ length: 5 }, (_, i) => ({
        sfbench: "audit",
        kind: "checkout",
        user: `u${i}`,
        credits: 100,
        cart: `c${i}`,
        items: [["p1", 1]],
        status: 200,
        orderId: `o${i}`,
        total: 10,
      }));
      const t0 = performance.now();
      // 5 records x (cart, order, user) + 1 product + 1 co-purchase answer = 17 reads at 40/s: 16 intervals of 25 ms
      const result = await audit({
        baseUrl: base,
        records,
        idOf: String,
        priceOf: () => 10,
        stockBefore: new Map([["p1", 9]]),
        quietMs: 0,
        readsPerSecond: 40,
      });
      expect(starts).toHaveLength(17);
      expect(performance.now() - t0).toBeGreaterThanOrEqual(16 * 25 - 5);
      // as the target sees them the reads are spread over the whole span (no bound on bunching within it:
      // timers that a busy machine fires late arrive together, which says nothing about the pace)
      // the last read cannot reach the target before its slot, 16 intervals after the audit began (a slow machine only delays it)
      expect(starts.at(-1)! - t0).toBeGreaterThanOrEqual(16 * 25 - 5);
      expect(result.total).toBe(0);
    });
  });
});
