/**
 * What is Temporal's own in the target as sfbench runs it (the conformance
 * suite, a quick cell and kill -9 of the whole target are
 * @sfbench/target-suite's): how target.json builds and starts it, the dev
 * server in its process group with its database in the target's data
 * directory, and the history a checkout leaves in the server.
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findTarget } from "@sfbench/catalogue";
import { buildDir, startTarget, stopTarget, targetDataDir, type StartedTarget } from "@sfbench/provider-local";
import { call, shopper } from "@sfbench/target-suite";
import { TARGET } from "./helpers.ts";

describe("target.json", () => {
  const { manifest } = findTarget(TARGET);

  it("builds with build.sh, starts the built launcher, keeps entities in its own PostgreSQL", () => {
    expect(manifest.build?.command).toEqual(["sh", "build.sh"]);
    expect(manifest.local?.command[0]).toBe("$SFBENCH_BUILD_DIR/temporal-target");
    expect(manifest.services).toEqual(["postgres"]);
    expect(manifest.micro).toBe(true);
  });
});

interface HistoryEvent {
  eventType: string;
}

describe("temporal started by provider-local", () => {
  let target: StartedTarget;

  beforeAll(async () => {
    await stopTarget(TARGET);
    target = await startTarget(TARGET, { port: "free" });
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
});
