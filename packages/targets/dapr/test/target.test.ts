/**
 * What is Dapr's own in the target as sfbench runs it (the conformance suite,
 * a quick cell and kill -9 of the whole target are @sfbench/target-suite's):
 * how target.json builds and starts it, placement and a daprd sidecar in its
 * process group, and a traced checkout's span hops.
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseSpanLine, type Span } from "@sfbench/core";
import { startTarget, stopTarget, type StartedTarget } from "@sfbench/provider-local";
import { findTarget } from "@sfbench/catalogue";
import { call, eventually, shopper } from "@sfbench/target-suite";
import { TARGET } from "./helpers.ts";

const PORT = 18951;

describe("target.json", () => {
  const { manifest } = findTarget(TARGET);

  it("builds with build.sh, starts the built launcher and routes to its nodes itself", () => {
    expect(manifest.build?.command).toEqual(["sh", "build.sh"]);
    expect(manifest.local?.command[0]).toBe("$SFBENCH_BUILD_DIR/dapr-target");
    expect(manifest.nodes).toMatchObject({ routing: "self" });
    expect(manifest.services).toEqual(["postgres"]);
    expect(manifest.micro).toBe(true);
  });
});

describe("dapr started by provider-local", () => {
  let target: StartedTarget;

  beforeAll(async () => {
    await stopTarget(TARGET);
    target = await startTarget(TARGET, { port: PORT, trace: true });
  });
  afterAll(async () => {
    await stopTarget(TARGET);
  });

  it("runs placement and a daprd sidecar in the target's process group", () => {
    const group = execFileSync("ps", ["-o", "args=", "-g", String(target.pid)], { encoding: "utf8" })
      .trim()
      .split("\n");
    expect(group.filter((l) => /\/placement /.test(l))).toHaveLength(1);
    expect(group.filter((l) => /\/daprd /.test(l))).toHaveLength(1);
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
