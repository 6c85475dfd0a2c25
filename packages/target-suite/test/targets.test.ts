/**
 * The same checks on every bundled target (packages/targets/<name>/), each
 * target started once for all of them: its manifest, its build, the whole
 * conformance suite, a quick benchmark cell, and kill -9 of the whole target
 * with a restart on the same data. A target folder's own tests cover only its
 * system's quirks. SFBENCH_TARGETS=a,b narrows the run (src/env.ts).
 */
import { mkdtempSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { formatFailure, runConformance } from "@sfbench/conformance";
import { CheckoutResult, manifestDigest, parseManifestText, parseResult, parseSpanLine, type Span } from "@sfbench/core";
import { aliveCheck, readAuditRecords, runBenchmark } from "@sfbench/engine";
import {
  costPids,
  ensureBuilt,
  isAlive,
  killTarget,
  nodeLogs,
  restartTarget,
  startTarget,
  stopTarget,
  storageFingerprint,
  type RunningTarget,
  type StartedTarget,
} from "@sfbench/provider-local";
import { findTarget, listTargets, type BundledTarget } from "@sfbench/catalogue";
import { k6Path, kafkaBrokers, paths, up } from "@sfbench/services";
import { selectTargets } from "../src/env.ts";
import { call, eventually, shopper } from "../src/http.ts";
import { withOutputOnFailure } from "../src/output.ts";
import { locSide, sourceFiles } from "../src/sources.ts";

/** The suite's ports, one per target of the catalogue (no other test listens in 19700-19799). */
const FIRST_PORT = 19700;

let catalogue: BundledTarget[] = [];
let catalogueError: unknown;
try {
  catalogue = listTargets();
} catch (e) {
  catalogueError = e;
}

if (catalogueError) {
  it("reads every bundled target.json", () => {
    throw catalogueError;
  });
}

const selected = selectTargets(catalogue.map((t) => t.name));

/** Every span line the running target has written so far, in its log and its other nodes' logs. */
function spansIn(target: StartedTarget, name: string): Span[] {
  return [target.log, ...nodeLogs(name)]
    .filter((f, i, all) => all.indexOf(f) === i)
    .flatMap((f) => readFileSync(f, "utf8").split("\n"))
    .flatMap((line) => parseSpanLine(line) ?? []);
}

for (const [index, bundled] of catalogue.entries()) {
  if (!selected.includes(bundled.name)) continue;
  const { name, dir, manifest } = bundled;

  describe(name, () => {
    let started: StartedTarget | undefined;
    let startFailure: string | undefined;
    /** the kill -9 test's: the target it killed, then the one it restarted */
    let killedOnPurpose = false;
    let restarted: RunningTarget | undefined;
    let since = 0;
    const tracing = manifest.tracing;

    /** The running target, or an error that says why there is none (its start failed: that test shows the cause). */
    const running = (): StartedTarget => {
      if (started) return started;
      throw new Error(`${name} is not running: ${startFailure ?? "its start did not run"}`);
    };

    /** Every log the target wrote to in this block: a failed test shows their ends (a target that died says why there). */
    const logsSeen = new Set<string>();
    const logs = (): string[] => {
      if (started) logsSeen.add(started.log);
      try {
        for (const file of nodeLogs(name)) logsSeen.add(file);
      } catch {
        // not running any more: the logs seen before
      }
      return [...logsSeen];
    };
    /**
     * Why the target is no longer serving, once it is not: a test that then fails says so first. A launcher that
     * lost a child stops the others before it exits (seconds), so a target that stopped answering is given that
     * long to exit and say why.
     */
    const stopped = async (): Promise<string | undefined> => {
      if (restarted) return isAlive(restarted.pid) ? undefined : `${name} is not running any more since its restart`;
      const target = started;
      if (!target || killedOnPurpose) return undefined;
      const exited = () => target.exited() ?? (isAlive(target.pid) ? undefined : "an unknown code");
      if (exited() === undefined) {
        const healthy = await fetch(target.url + manifest.health, { signal: AbortSignal.timeout(5000) }).then(
          (r) => r.status === 200,
          () => false,
        );
        if (healthy) return undefined;
        const deadline = performance.now() + 15_000;
        while (exited() === undefined && performance.now() < deadline) await new Promise((r) => setTimeout(r, 200));
      }
      const how = exited();
      return how === undefined ? `${name} no longer answers its health route` : `${name} is not running any more: its launcher exited with ${how}`;
    };
    const explained = (body: () => Promise<void>) => () => withOutputOnFailure(logs, body, stopped);

    beforeAll(async () => {
      since = performance.now();
      await stopTarget(name); // an instance a crashed earlier test run left behind
    });
    afterAll(async () => {
      await stopTarget(name);
      console.log(`${name}: checked in ${((performance.now() - since) / 1000).toFixed(0)} s`);
    });

    it("has a valid target.json whose loc globs count every source file once, as app or as gateway, and no test code", () => {
      const result = parseManifestText(readFileSync(join(dir, "target.json"), "utf8"));
      expect(result, JSON.stringify(result)).toMatchObject({ ok: true });
      // the catalogue's own rules: the name is the folder's, and a bundled target has a local start command
      expect(() => findTarget(name)).not.toThrow();
      const sources = sourceFiles(dir);
      expect(sources.length).toBeGreaterThan(0);
      for (const file of sources) {
        const side = locSide(manifest, file);
        expect(side.app !== side.gateway, `${file}: app ${side.app}, gateway ${side.gateway}`).toBe(true);
      }
      expect(sources.some((f) => locSide(manifest, f).app)).toBe(true);
      expect(sources.some((f) => locSide(manifest, f).gateway)).toBe(true);
      // unit tests live apart (Go's in gotest/, the others' in test/), so the lines of code count no test code
      expect(sources.filter((f) => /(_test\.go|\.test\.[mc]?[jt]sx?|Test\.java)$/.test(f))).toEqual([]);
    });

    it("has a current build", { timeout: ((manifest.build?.timeoutSeconds ?? 0) + 120) * 1000 }, async () => {
      // bootstrap built it already; this rebuilds only when a source changed since
      const built = await ensureBuilt(name);
      if (manifest.build) expect(built).toMatchObject({ name });
      else expect(built).toBeUndefined();
    });

    it("starts through provider-local and answers its health route", { timeout: (manifest.local!.startupTimeoutSeconds + 300) * 1000 }, async () => {
      try {
        // span lines go through Kafka to the quick cell's breakdown, as `sfbench run` ships them
        if (tracing) await up(["kafka"]);
        started = await startTarget(name, { port: FIRST_PORT + index, trace: tracing });
      } catch (e) {
        startFailure = e instanceof Error ? e.message : String(e);
        throw e;
      }
      expect((await call(started.url, "GET", manifest.health)).status).toBe(200);
    });

    it(
      `passes the whole conformance suite${manifest.micro ? ", the micro group included (target.json declares micro)" : ""}`,
      explained(async () => {
        const report = await runConformance(running().url, { micro: manifest.micro === true });
        const failures = report.checks.filter((c) => !c.passed).map(formatFailure);
        expect(failures, failures.join("\n\n")).toEqual([]);
        expect(report.failed).toBe(0);
        expect(report.passed).toBeGreaterThan(100);
        if (manifest.micro) expect(report.checks.filter((c) => c.group === "micro").length).toBeGreaterThan(40);
      }),
    );

    it(
      "runs a quick checkout cell, as `sfbench run --profile quick` does, with a valid document and no anomaly",
      explained(async () => {
        const target = running();
        const out = mkdtempSync(join(tmpdir(), `suite-${name}-`));
        const { doc } = await runBenchmark({
          target: { name: manifest.name, version: manifest.version, system: manifest.system, manifestDigest: manifestDigest(manifest) },
          baseUrl: target.url,
          k6: await k6Path(),
          profile: "quick",
          cells: [{ workload: "checkout", distribution: "uniform" }],
          seed: 1,
          repoRoot: paths.root,
          resultsDir: join(out, "results"),
          rawRoot: join(out, "raw"),
          // the target's processes and its own PostgreSQL server or Kafka broker
          targetPids: () => costPids(target),
          storage: storageFingerprint(target),
          checkAlive: aliveCheck(() => target.exited() ?? (isAlive(target.pid) ? undefined : "an unknown code")),
          systemVersion: `${manifest.system} ${manifest.version}`,
          ...(manifest.audit?.readsPerSecond ? { auditReadsPerSecond: manifest.audit.readsPerSecond } : {}),
          ...(tracing ? { trace: { logFile: target.log, logFiles: () => nodeLogs(name), brokers: kafkaBrokers() } } : {}),
        });
        expect(parseResult(doc).ok).toBe(true);
        expect(doc.status, JSON.stringify(doc.error)).toBe("completed");
        const cell = doc.cells.find((c) => c.workload === "checkout")!;
        // checkouts without a clear answer are resolved by reading their carts: anomalies only if a cart contradicts the workload
        expect(cell.anomalies, JSON.stringify(cell.anomalies?.examples)).toMatchObject({ total: 0 });
        // whether the cell is a publishable figure depends on the machine's load, not on the target: defined, never compared
        expect(cell.maxThroughput).toBeDefined();
        expect(cell.cost!.targetCpuSeconds).toBeGreaterThan(0);
        if (cell.cost!.coreSecondsPer1000 !== undefined) {
          // and split by the target's processes (which ones is the system's design): some, each with a label
          expect(Object.keys(cell.cost!.cpuByProcess ?? {}).length, JSON.stringify(cell.cost)).toBeGreaterThan(0);
        } else {
          // a machine too loaded for a slow target to complete a checkout in the 3 s stable phase leaves no
          // cost per checkout to split: the cell must say why its figures are not published
          expect(cell.valid, JSON.stringify(cell.stable)).toBe(false);
          expect(cell.invalidReason).toMatch(/stable phase/);
        }
        if (tracing) {
          // the knee search and the stable phase sent unsampled requests: none of theirs wrote a span (SPEC 3), the traced phase's did
          const spans = spansIn(target, name);
          const spanTraces = new Set(spans.map((span) => span.traceId));
          const recordsOf = async (part: string) =>
            (await readAuditRecords(join(doc.rawData.dir, `checkout-uniform-${part}.console.log`))).checkouts.filter((c) => c.traceId);
          const stableIds = (await recordsOf("stable")).map((c) => c.traceId!);
          expect(stableIds.length).toBeGreaterThan(0);
          expect(stableIds.filter((id) => spanTraces.has(id))).toEqual([]);
          const traced = await recordsOf("traced");
          expect(traced.some((c) => spanTraces.has(c.traceId!))).toBe(true);
          expect(cell.traced!.offeredRate).toBe(cell.stable!.offeredRate);
          // the breakdown is of the traced checkouts that were answered and whose gateway wrote its span
          const gatewayTraces = new Set(spans.filter((span) => span.kind === "gateway").map((span) => span.traceId));
          const answered = traced.filter((c) => (c.status === 200 || c.status === 409) && gatewayTraces.has(c.traceId!));
          const breakdown = cell.breakdown as { overall?: { functionMs: Record<string, number>; count: number } } | undefined;
          if (answered.length > 0) {
            expect(breakdown?.overall?.count, JSON.stringify(cell.traced)).toBeGreaterThan(0);
            // which entities' time shows depends on the system's design (a saga in the cart or in the order): some, not which
            expect(Object.keys(breakdown!.overall!.functionMs).length, JSON.stringify(breakdown!.overall)).toBeGreaterThan(0);
          } else {
            // a machine too loaded for a slow target to answer a traced checkout within the quick profile's
            // traced phase leaves nothing to break down: the cell has no breakdown rather than an empty one
            expect(breakdown, JSON.stringify(cell.traced)).toBeUndefined();
          }
        }
      }),
    );

    it.skipIf(!tracing)(
      "writes no span for a checkout whose traceparent is unsampled or missing, in its gateway or in anything the checkout causes",
      explained(async () => {
        const target = running();
        const spanLines = () => spansIn(target, name).length;
        const s = shopper(target.url);
        const a = await s.product(5, 10);
        const b = await s.product(7, 10);
        const userId = await s.user(100);
        const unsampled = await s.cart({ [a]: 1, [b]: 2 });
        const bare = await s.cart({ [a]: 1, [b]: 1 });
        const before = spanLines();
        // a checkout of a phase that ranks the target (flags -00), and one without a traceparent
        expect((await s.checkout(unsampled, userId, { traceparent: "00-2cf7651916cd43dd8448eb211c80319e-b7ad6b7169203333-00" })).status).toBe(200);
        expect((await s.checkout(bare, userId)).status).toBe(200);
        // co-purchase counts land after the answers: once both directions show, all the checkouts caused has run
        await eventually(async () => expect((await call(target.url, "GET", `/products/${a}/freq-items`)).body).toEqual([b]));
        await eventually(async () => expect((await call(target.url, "GET", `/products/${b}/freq-items`)).body).toEqual([a]));
        // then every span writer's flush (tens of milliseconds at most) and the log's copy
        await new Promise((r) => setTimeout(r, 500));
        expect(spanLines()).toBe(before);
      }),
    );

    it(
      "keeps every answered write through kill -9 of the whole target and a restart on the same data",
      explained(async () => {
        const before = running();
        const s = shopper(before.url);
        const a = await s.product(10, 100);
        const b = await s.product(3, 50);
        await s.ok("PATCH", `/products/${a}`, { price: 11, stock: 5 });
        const userId = await s.user(1000);
        await s.ok("PATCH", `/users/${userId}/credits/add`, { credits: 500 });
        const cartId = await s.cart({ [a]: 2, [b]: 4 });
        const open = await s.cart({ [b]: 1 });
        const checkout = await s.checkout(cartId, userId);
        expect(checkout.status, checkout.text).toBe(200);
        const { orderId, total } = CheckoutResult.parse(checkout.body);
        expect(total).toBe(11 * 2 + 3 * 4);
        // co-purchase counts are updated after the answer (SPEC 2.1 step 6): both directions visible, then a second for a
        // writer that persists them in batches behind the entities' memory (protoactor-go's)
        await eventually(async () => expect((await call(before.url, "GET", `/products/${a}/freq-items`)).body).toEqual([b]));
        await eventually(async () => expect((await call(before.url, "GET", `/products/${b}/freq-items`)).body).toEqual([a]));
        await new Promise((r) => setTimeout(r, 1000));

        killedOnPurpose = true;
        const killed = await killTarget(name);
        expect(killed.nodes.filter((n) => n.goneAt === undefined)).toEqual([]);
        expect(
          await fetch(`${before.url}${manifest.health}`).then(
            (r) => r.status,
            () => "nothing answers",
          ),
        ).toBe("nothing answers");
        const after = (restarted = await restartTarget(name));
        const t = shopper(after.url);

        expect(await t.ok("GET", `/products/${a}`)).toEqual({ id: a, price: 11, stock: 105 - 2 });
        expect(await t.ok("GET", `/products/${b}`)).toEqual({ id: b, price: 3, stock: 50 - 4 });
        expect(await t.ok("GET", `/users/${userId}`)).toEqual({ id: userId, credits: 1500 - total });
        expect(await t.ok("GET", `/orders/${orderId}`)).toEqual({ id: orderId, cartId, userId, status: "completed", total });
        expect(await t.ok("GET", `/shopping-carts/${cartId}`)).toMatchObject({ checkedOut: true });
        expect(await t.ok("GET", `/shopping-carts/${open}`)).toEqual({ id: open, items: [{ productId: b, amount: 1 }], checkedOut: false });
        expect(await t.ok("GET", `/products/${b}/freq-items`)).toEqual([a]);
        // a cart is charged at most once, also across a crash
        const again = await t.checkout(cartId, userId);
        expect(again.status).toBe(409);
        expect(again.body).toMatchObject({ error: "cart-checked-out" });
      }),
    );
  });
}
