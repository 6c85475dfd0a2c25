/**
 * A check that cannot fail is not a check: the suite must pass a correct
 * target and catch each deliberately broken one by the named checks.
 */
import { afterEach, describe, expect, it } from "vitest";
import { countChecks, runConformance } from "../src/index.ts";
import { CASES } from "../src/suites/malformed.ts";
import { startMemoryTarget, type Fault, type MemoryTarget } from "./fixtures/memory-target.ts";

let target: MemoryTarget | undefined;
afterEach(async () => {
  await target?.close();
  target = undefined;
});

async function failedChecks(fault: Fault): Promise<string[]> {
  target = await startMemoryTarget({ fault });
  const report = await runConformance(target.url, { quietMs: 1500 });
  return report.checks.filter((c) => !c.passed).map((c) => c.id);
}

/** For each fault: checks that must fail (more may fail as a consequence). */
const CAUGHT_BY: Array<[Exclude<Fault, "none">, string[]]> = [
  ["no-rollback", ["checkout.insufficient-stock-changes-nothing", "checkout.insufficient-credits-changes-nothing"]],
  ["double-charge", ["checkout.cart-charged-once", "concurrency.cart-charged-once"]],
  ["ascending-top", ["analytics.top-descending", "analytics.defaults"]],
  ["no-tiebreak", ["analytics.tie-break-ascending-id"]],
  ["500-on-bad-json", ["malformed.products-bad-json", "malformed.users-bad-json", "malformed.checkout-bad-json"]],
  ["oversell", ["concurrency.exactly-stock-succeed", "concurrency.stock-ends-at-zero"]],
  ["no-co-purchase", ["analytics.top-descending", "concurrency.co-purchase-counts-exact"]],
  ["root-in-freq-items", ["analytics.top-descending", "analytics.depth-fan-out", "analytics.cycle-terminates"]],
  ["wrong-total", ["checkout.total", "checkout.retracts-credits"]],
  ["accept-negative", ["malformed.products-price-negative", "malformed.credits-zero", "malformed.cart-amount-zero", "malformed.nothing-changed"]],
  [
    "no-404",
    ["products.get-unknown-404", "users.get-unknown-404", "carts.add-unknown-product-404", "checkout.unknown-cart-404", "analytics.unknown-product-404"],
  ],
  ["bad-error-body", ["products.get-unknown-404", "malformed.products-bad-json", "checkout.empty-cart-409"]],
  ["fake-checkout", ["checkout.retracts-stock", "checkout.retracts-credits", "checkout.order-recorded"]],
  ["nul-in-path-ids", ["malformed.get-product-nul-id", "malformed.patch-product-nul-id"]],
  ["body-required", ["products.create-no-body", "users.create-no-body"]],
];

describe("the conformance suite", () => {
  it("has at least 60 checks, of them at least 40 malformed inputs", () => {
    expect(countChecks()).toBeGreaterThanOrEqual(60);
    expect(CASES.length).toBeGreaterThanOrEqual(40);
  });

  it("passes every check against a correct target", async () => {
    target = await startMemoryTarget();
    const report = await runConformance(target.url, { quietMs: 1500 });
    expect(report.checks.filter((c) => !c.passed).map((c) => `${c.id}: ${c.message}`)).toEqual([]);
    expect(report.passed).toBe(countChecks());
  });

  it.each(CAUGHT_BY)("catches a target with fault %s by name", async (fault, expected) => {
    const failed = await failedChecks(fault);
    expect(failed).toEqual(expect.arrayContaining(expected));
  });

  it("runs only the checks selected with `only`", async () => {
    target = await startMemoryTarget();
    const report = await runConformance(target.url, { only: ["checkout.total", "analytics"] });
    expect(report.checks.map((c) => c.id)).toContain("checkout.total");
    expect(report.checks.every((c) => c.id === "checkout.total" || c.id.startsWith("analytics."))).toBe(true);
  });

  it("fails every check with a clear message when nothing listens", async () => {
    const report = await runConformance("http://127.0.0.1:9", { only: ["health", "products.create-defaults"], timeoutMs: 1000 });
    expect(report.failed).toBe(2);
    expect(report.checks[0]!.message).toMatch(/connection failed/);
  });

  it("waits on a line of concurrent checkouts on one product longer than on one request, and still catches a hang", async () => {
    // 50 checkouts served one after another, 60 ms each: the last answers after 3 s, past the 1 s a single request gets
    target = await startMemoryTarget({ checkoutLineMs: 60 });
    const inLine = await runConformance(target.url, { only: ["concurrency.no-5xx", "concurrency.exactly-stock-succeed"], timeoutMs: 1000 });
    expect(inLine.checks.filter((c) => !c.passed).map((c) => `${c.id}: ${c.message}`)).toEqual([]);
    await target.close();
    // one checkout alone that takes 1.5 s is past the 1 s
    target = await startMemoryTarget({ checkoutLineMs: 1500 });
    const alone = await runConformance(target.url, { only: ["checkout.total"], timeoutMs: 1000 });
    expect(alone.checks[0]!.message).toMatch(/no answer within 1000 ms/);
  });

  it("fails everything at once, without a timeout per check, when /health does not answer 200", async () => {
    const { createServer } = await import("node:http");
    const srv = createServer((_req, res) => res.writeHead(503, { "content-type": "application/json" }).end('{"error":"starting","message":"not yet"}'));
    await new Promise<void>((r) => srv.listen(0, "127.0.0.1", () => r()));
    const started = Date.now();
    const report = await runConformance(`http://127.0.0.1:${(srv.address() as { port: number }).port}`);
    srv.close();
    expect(Date.now() - started).toBeLessThan(3000);
    expect(report.passed).toBe(0);
    expect(report.checks.at(-1)!.message).toMatch(/^not run: the target's \/health did not answer 200/);
  });

  it("stops starting checks when the time budget runs out", async () => {
    target = await startMemoryTarget();
    const report = await runConformance(target.url, { budgetMs: 1 });
    expect(report.checks[0]!.passed).toBe(true);
    expect(report.checks.at(-1)!.message).toMatch(/^not run: the suite's time budget of 0 s ran out/);
    expect(report.failed).toBeGreaterThan(report.checks.length - 5);
  });
});
