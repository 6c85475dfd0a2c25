import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startMemoryTarget, type MemoryTarget } from "@sfbench/conformance/testing";
import { sfbench } from "./helpers.ts";

describe("sfbench verify --url", () => {
  let good: MemoryTarget;
  let broken: MemoryTarget;
  beforeAll(async () => {
    [good, broken] = await Promise.all([startMemoryTarget(), startMemoryTarget({ fault: "double-charge" })]);
  });
  afterAll(async () => Promise.all([good.close(), broken.close()]));

  it("prints a table and exits 0 when every check passes", async () => {
    const r = await sfbench(["verify", "--url", good.url]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^check\s+result\s+time\s+detail/);
    expect(r.stdout).toMatch(/checkout\.cart-charged-once\s+pass/);
    expect(r.stdout).toMatch(/\n\d+ passed, 0 failed \(\d+ checks against http:\/\/127\.0\.0\.1:\d+ in [\d.]+ s\)\n$/);
  });

  it("exits 1 and shows the failing request and response", async () => {
    const r = await sfbench(["verify", "--url", broken.url, "--only", "checkout"]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/checkout\.cart-charged-once\s+FAIL/);
    expect(r.stdout).toMatch(/FAIL checkout\.cart-charged-once: a second checkout/);
    expect(r.stdout).toMatch(/request: {2}POST \/orders\/checkout \{"cartId":/);
    expect(r.stdout).toMatch(/response: 200 \{"orderId":/);
  });

  it("prints JSON with --json", async () => {
    const r = await sfbench(["verify", "--url", good.url, "--json", "--only", "health", "--only", "products"]);
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout) as { passed: number; failed: number; checks: Array<{ id: string; passed: boolean }> };
    expect(report.failed).toBe(0);
    expect(report.checks.map((c) => c.id)).toContain("products.patch-creates");
    expect(report.checks.every((c) => c.id.startsWith("health") || c.id.startsWith("products"))).toBe(true);
  });

  it("fails clearly when nothing listens at the URL", async () => {
    const r = await sfbench(["verify", "--url", "http://127.0.0.1:9", "--only", "health"]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/connection failed/);
  });
});
