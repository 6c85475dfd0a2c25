/**
 * The target as a run sees it: built and started by provider-local (tracing
 * on), the whole conformance suite, span lines through the JVM, and requests
 * the job does not answer (504 no-answer, counted on /stats).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runConformance, formatFailure } from "@sfbench/conformance";
import { startTarget, stopTarget, type StartedTarget } from "@sfbench/provider-local";
import { readStat } from "@sfbench/engine";
import { call, childPid, eventually, freePort, shopper, spansOf, TARGET } from "./helpers.ts";

let target: StartedTarget;

beforeAll(async () => {
  await stopTarget(TARGET);
  target = await startTarget(TARGET, { port: await freePort(), trace: true });
});
afterAll(async () => {
  await stopTarget(TARGET);
});

describe("statefun through provider-local", () => {
  it("passes the whole conformance suite", { timeout: 600_000 }, async () => {
    const report = await runConformance(target.url);
    const failures = report.checks.filter((c) => !c.passed).map(formatFailure);
    expect(failures).toEqual([]);
    expect(report.passed).toBeGreaterThan(100);
  });

  it("writes a gateway span and function spans of every hop of a checkout under the caller's trace", async () => {
    const s = shopper(target.url);
    const p1 = await s.product(2, 10);
    const p2 = await s.product(3, 10);
    const user = await s.user(100);
    const cart = await s.cart({ [p1]: 1, [p2]: 2 });
    const traceId = "4bf92f3577b34da6a3ce929d0e0e4736";
    const parent = "00f067aa0ba902b7";
    const answer = await call(target.url, "POST", "/orders/checkout", { cartId: cart, userId: user }, { traceparent: `00-${traceId}-${parent}-01` });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ total: 8 });

    const spans = await eventually(async () => {
      const found = spansOf(target.log, traceId);
      // the gateway's span and the functions' spans reach the log from different writers, in either order
      if (found.filter((x) => x.kind === "function").length < 9 || !found.some((x) => x.kind === "gateway"))
        throw new Error(`only ${found.length} spans so far`);
      return found;
    });
    const gateway = spans.filter((x) => x.kind === "gateway");
    expect(gateway).toHaveLength(1);
    expect(gateway[0]).toMatchObject({ parentId: parent, entity: "order", op: "checkout", key: cart });
    const fns = spans.filter((x) => x.kind === "function");
    expect(fns.map((x) => `${x.entity}.${x.op}`).sort()).toEqual(
      [
        "cart.checkout",
        "order.start",
        "product.retract",
        "product.retract",
        "order.retracted",
        "order.retracted",
        "user.charge",
        "order.charged",
        "cart.checkoutDone",
      ].sort(),
    );
    expect(
      fns
        .filter((x) => x.op === "retract")
        .map((x) => x.key)
        .sort(),
    ).toEqual([p1, p2].sort());
    for (const span of fns) {
      expect(span.parentId).toBe(gateway[0]!.spanId);
      expect(span.start).toBeGreaterThanOrEqual(gateway[0]!.start);
      expect(span.end).toBeLessThanOrEqual(gateway[0]!.end);
    }
  });

  it("answers 504 no-answer when the job does not answer in time, counts it, and counts the late answer", { timeout: 60_000 }, async () => {
    const before = (await call(target.url, "GET", "/stats")).body as { noAnswer: number; lateAnswers: number };
    const jvm = childPid(target.pid, "dev.sfbench.statefun.Main");
    process.kill(jvm, "SIGSTOP");
    let answer;
    try {
      // kill(2) only queues the signal: ask once the kernel reports the JVM stopped
      await eventually(async () => expect(readStat(jvm)?.state).toBe("T"), 5000);
      answer = await call(target.url, "GET", "/users/nobody");
    } finally {
      process.kill(jvm, "SIGCONT");
    }
    // the text says who answered if something did: only a stopped job's gateway may answer here, with 504
    expect(answer.status, `answer while the JVM (${jvm}) was stopped: ${answer.text}`).toBe(504);
    expect(answer.body).toMatchObject({ error: "no-answer" });
    await eventually(async () => {
      const stats = (await call(target.url, "GET", "/stats")).body as { noAnswer: number; lateAnswers: number; pending: number };
      expect(stats.noAnswer).toBe(before.noAnswer + 1);
      expect(stats.lateAnswers).toBe(before.lateAnswers + 1);
    });
    // the job is fine again
    expect((await call(target.url, "GET", "/users/nobody")).status).toBe(404);
  });
});
