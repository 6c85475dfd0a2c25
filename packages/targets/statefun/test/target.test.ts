/**
 * What is StateFun's own in the target as a run sees it (the conformance
 * suite, a quick cell and kill -9 of the whole target are
 * @sfbench/target-suite's): how target.json builds it, span lines through the
 * JVM, the largest microbenchmark requests SPEC 8 allows (through the gateway,
 * Kafka ingress and egress and the job, before the no-answer deadline), and
 * requests the job does not answer (504 no-answer, counted on /stats). One
 * start of the target serves them all: the JVM and its Kafka take most of a
 * minute to come up on a loaded machine.
 */
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTarget, stopTarget, type StartedTarget } from "@sfbench/provider-local";
import { findTarget } from "@sfbench/catalogue";
import { readStat } from "@sfbench/engine";
import { call, eventually, largestMicroRequests, locSide, shopper, sourceFiles, spansInLog } from "@sfbench/target-suite";
import { childPid, TARGET } from "./helpers.ts";

describe("target.json", () => {
  const { manifest } = findTarget(TARGET);

  it("builds with Maven into the build directory and needs Kafka", () => {
    expect(manifest.build?.command[0]).toBe("mvn");
    expect(manifest.build?.command).toContain("-Dsfbench.out=$SFBENCH_BUILD_DIR");
    expect(manifest.build?.inputs).toEqual(expect.arrayContaining(["pom.xml", "src/main/**/*.java"]));
    expect(manifest.services).toEqual(["kafka"]);
    expect(manifest.micro).toBe(true);
    expect(manifest.port).toBeGreaterThanOrEqual(18900);
    expect(manifest.port).toBeLessThanOrEqual(18999);
  });

  it("counts the functions as app and the gateway, the launcher and the JVM's start-up as gateway", () => {
    const sources = sourceFiles(fileURLToPath(new URL("..", import.meta.url))).filter((f) => f.endsWith(".java") || f.endsWith(".ts"));
    expect(sources.length).toBeGreaterThan(15);
    for (const file of sources) {
      // what starts the JVM and reads its environment is the Java side's launcher, not the application
      const startUp = /\/(Main|Config)\.java$/.test(file);
      expect(locSide(manifest, file).app, file).toBe(file.endsWith(".java") && !startUp);
    }
  });
});

describe("statefun through provider-local", () => {
  let target: StartedTarget;

  beforeAll(async () => {
    await stopTarget(TARGET);
    target = await startTarget(TARGET, { port: "free", trace: true });
  });
  afterAll(async () => {
    await stopTarget(TARGET);
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
      const found = spansInLog(target.log, traceId);
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

  it("answers the largest micro requests the spec allows, within their no-answer deadline", async () => {
    for (const r of largestMicroRequests()) {
      const answer = await call(target.url, "POST", r.path, r.body);
      expect(answer.status, `POST ${r.path} -> ${answer.status} ${answer.text}`).toBe(200);
      expect(answer.body).toMatchObject(r.expected);
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
