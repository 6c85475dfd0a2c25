/**
 * What is Temporal's own in the target as sfbench runs it (the conformance
 * suite, a quick cell and kill -9 of the whole target are
 * @sfbench/target-suite's): how target.json builds and starts it, the dev
 * server in its process group with its database in the target's data
 * directory, the history a checkout leaves in the server, and the spans a
 * traced checkout writes from the gateway and from its activities.
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findTarget } from "@sfbench/catalogue";
import { buildDir, startTarget, stopTarget, targetDataDir, type StartedTarget } from "@sfbench/provider-local";
import { call, eventually, shopper, spansInLog } from "@sfbench/target-suite";
import { TARGET } from "./helpers.ts";

describe("target.json", () => {
  const { manifest } = findTarget(TARGET);

  it("builds with build.sh, starts the built launcher, keeps entities in its own PostgreSQL", () => {
    expect(manifest.build?.command).toEqual(["sh", "build.sh"]);
    expect(manifest.local?.command[0]).toBe("$SFBENCH_BUILD_DIR/temporal-target");
    expect(manifest.services).toEqual(["postgres"]);
    expect(manifest.micro).toBe(true);
    expect(manifest.tracing).toBe(true);
  });
});

interface HistoryEvent {
  eventType: string;
}

describe("temporal started by provider-local", () => {
  let target: StartedTarget;

  beforeAll(async () => {
    await stopTarget(TARGET);
    target = await startTarget(TARGET, { port: "free", trace: true });
  });
  afterAll(async () => {
    await stopTarget(TARGET);
  });

  it("runs the dev server in the target's process group, its SQLite file in the data directory, synced on commit", () => {
    const group = execFileSync("ps", ["-o", "args=", "-g", String(target.pid)], { encoding: "utf8" })
      .trim()
      .split("\n");
    const server = group.filter((l) => /\/temporal server start-dev /.test(l));
    expect(server).toHaveLength(1);
    expect(server[0]).toContain(`--db-filename ${join(targetDataDir(TARGET), "temporal.db")}`);
    expect(server[0]).toContain("synchronous=full");
  });

  it("leaves one workflow per checkout: a read, one reservation per product, a charge and a completion", async () => {
    const s = shopper(target.url);
    const [a, b, c] = [await s.product(5, 10), await s.product(7, 10), await s.product(1, 10)];
    const userId = await s.user(100);
    const cartId = await s.cart({ [a]: 1, [b]: 2, [c]: 1 });
    const answer = await call(target.url, "POST", "/orders/checkout", { cartId, userId });
    expect(answer.status).toBe(200);
    const address = /Temporal server at ([\d.]+:\d+)/.exec(readFileSync(target.log, "utf8"))?.[1];
    expect(address).toBeDefined();
    const shown = execFileSync(
      join(buildDir(TARGET), "temporal"),
      ["workflow", "show", "--address", address!, "--workflow-id", `checkout/${cartId}`, "--output", "json"],
      { encoding: "utf8" },
    );
    // eventType is the enum name, e.g. EVENT_TYPE_ACTIVITY_TASK_SCHEDULED
    const events = (JSON.parse(shown) as { events: HistoryEvent[] }).events.map((e) => e.eventType.replace(/_/g, ""));
    const scheduled = events.filter((t) => /ActivityTaskScheduled/i.test(t));
    expect(scheduled).toHaveLength(1 + 3 + 2);
    expect(events.at(-1)).toMatch(/WorkflowExecutionCompleted/i);
  });

  it("writes the gateway span of a traced checkout and, under it, a function span per activity; an untraced one writes none", async () => {
    const s = shopper(target.url);
    const [a, b] = [await s.product(2, 10), await s.product(3, 10)];
    const userId = await s.user(100);
    const cartId = await s.cart({ [a]: 1, [b]: 2 });
    const untraced = "0af7651916cd43dd8448eb211c80319c";
    const cart0 = await s.cart({ [a]: 1 });
    const first = await call(target.url, "POST", "/orders/checkout", { cartId: cart0, userId }, { traceparent: `00-${untraced}-b7ad6b7169203331-00` });
    expect(first.status).toBe(200);
    const traceId = "4bf92f3577b34da6a3ce929d0e0e4736";
    const answer = await call(target.url, "POST", "/orders/checkout", { cartId, userId }, { traceparent: `00-${traceId}-00f067aa0ba902b7-01` });
    expect(answer.status).toBe(200);
    const orderId = (answer.body as { orderId: string }).orderId;
    const spans = await eventually(async () => {
      const found = spansInLog(target.log, traceId);
      if (found.length < 6) throw new Error(`only ${found.length} spans so far`);
      return found;
    });
    const gateway = spans.filter((x) => x.kind === "gateway");
    expect(gateway).toHaveLength(1);
    expect(gateway[0]).toMatchObject({ parentId: "00f067aa0ba902b7", entity: "order", op: "checkout" });
    const fns = spans.filter((x) => x.kind === "function");
    expect(fns.map((x) => `${x.entity}.${x.op}:${x.key}`).sort()).toEqual(
      [`cart.read:${cartId}`, `product.retract:${a}`, `product.retract:${b}`, `user.charge:${userId}`, `order.create:${orderId}`].sort(),
    );
    for (const span of fns) {
      expect(span.parentId).toBe(gateway[0]!.spanId);
      expect(span.start).toBeGreaterThanOrEqual(gateway[0]!.start);
      expect(span.end).toBeLessThanOrEqual(gateway[0]!.end);
    }

    // written before the traced checkout's spans, by the same writer, had it written any
    expect(spansInLog(target.log, untraced)).toEqual([]);
  });
});
