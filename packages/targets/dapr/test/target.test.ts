/**
 * The target as sfbench runs it: built and started by provider-local from
 * target.json (a fresh PostgreSQL database, placement, one daprd sidecar and
 * the app), then the whole conformance suite with the micro group, and a
 * traced checkout.
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { formatFailure, runConformance } from "@sfbench/conformance";
import { parseSpanLine, type Span } from "@sfbench/core";
import { startTarget, stopTarget, type StartedTarget } from "@sfbench/provider-local";
import { call, eventually, shopper, TARGET } from "./helpers.ts";

const PORT = 18951;
let target: StartedTarget;

beforeAll(async () => {
  await stopTarget(TARGET);
  target = await startTarget(TARGET, { port: PORT, trace: true });
});

afterAll(async () => {
  await stopTarget(TARGET);
});

describe("dapr started by provider-local", () => {
  it("runs placement and a daprd sidecar in the target's process group", () => {
    const group = execFileSync("ps", ["-o", "args=", "-g", String(target.pid)], { encoding: "utf8" })
      .trim()
      .split("\n");
    expect(group.filter((l) => /\/placement /.test(l))).toHaveLength(1);
    expect(group.filter((l) => /\/daprd /.test(l))).toHaveLength(1);
  });

  it("passes the whole conformance suite, micro routes included", async () => {
    const report = await runConformance(target.url, { micro: true });
    const failures = report.checks.filter((c) => !c.passed).map(formatFailure);
    expect(failures).toEqual([]);
    expect(report.passed).toBeGreaterThan(150);
  });

  it("writes a gateway span and function spans with the traceparent's trace id for a checkout", async () => {
    const s = shopper(target.url);
    const [a, b] = [await s.product(5, 10), await s.product(7, 10)];
    const userId = await s.user(100);
    const cartId = await s.cart({ [a]: 1, [b]: 2 });
    const traceId = "4bf92f3577b34da6a3ce929d0e0e4736";
    const answer = await call(target.url, "POST", "/orders/checkout", { cartId, userId }, { traceparent: `00-${traceId}-00f067aa0ba902b7-01` });
    expect(answer.status).toBe(200);
    const spans = await eventually(async () => {
      const found = readFileSync(target.log, "utf8")
        .split("\n")
        .map(parseSpanLine)
        .filter((sp): sp is Span => sp !== null && sp.traceId === traceId);
      // the span writer flushes every 10 ms: wait for the gateway's and all six function spans
      if (found.length < 7 || !found.some((sp) => sp.kind === "gateway")) throw new Error(`${found.length} spans so far`);
      return found;
    });
    const gateway = spans.find((sp) => sp.kind === "gateway")!;
    expect(gateway).toMatchObject({ entity: "order", op: "checkout", parentId: "00f067aa0ba902b7" });
    const checkout = spans.find((sp) => sp.kind === "function" && sp.entity === "cart" && sp.op === "checkout")!;
    expect(checkout).toMatchObject({ key: cartId, parentId: gateway.spanId });
    const retracts = spans.filter((sp) => sp.entity === "product" && sp.op === "retract");
    expect(retracts.map((sp) => sp.key).sort()).toEqual([a, b].sort());
    for (const sp of retracts) expect(sp.parentId).toBe(checkout.spanId);
    expect(spans.some((sp) => sp.entity === "user" && sp.op === "retract")).toBe(true);
    expect(spans.some((sp) => sp.entity === "order" && sp.op === "create")).toBe(true);
    for (const sp of spans) expect(sp.end).toBeGreaterThanOrEqual(sp.start);
  });
});
