/**
 * The microbenchmarks of a run (docs/spec.md section 8): invocation overhead
 * of each micro route at the profile's fixed arrival rates (k6/micro.ts), the
 * highest sustainable rate of `empty` (the ramp's knee search and rule), and
 * the messaging benchmarks (ping-pong, divide-and-conquer, Big), each one
 * request whose answer the target times itself. Every answer is checked
 * against the spec (message counts, histogram sums, the divide checksum).
 */
import type { MicroBig, MicroDivide, MicroOverhead, MicroPingPong, MicroResult, MicroRoute } from "@sfbench/core";
import { MICRO_ROUTES } from "@sfbench/core";
import { divideExpected, histogramProblems, histogramQuantile } from "@sfbench/conformance/micro";
import { aggregateK6, type MeasuredOp } from "../analysis/aggregate.ts";
import { streamK6Csv } from "../analysis/k6-csv.ts";
import { judgeStep } from "../analysis/metrics.ts";
import { findKnee, type KneePlan } from "../experiment/knee.ts";
import { progress, StageError, type RunContext } from "../experiment/phase.ts";
import { MICRO_PARAMETER } from "@sfbench/workloads";

export interface MicroPlan {
  /** fixed arrival rates at which every route's overhead is measured */
  overheadRates: number[];
  /** seconds per overhead step */
  overheadStepS: number;
  /** the search for the highest sustainable rate of `empty` */
  emptyKnee: KneePlan;
  emptyStepS: number;
  pingpong: Array<{ pairs: number; bytes: number; messages: number }>;
  divide: Array<{ items: number; fanout: number; leaf: number }>;
  big: Array<{ entities: number; messages: number }>;
}

const CALL = "micro";
const stats = (values: number[]) => {
  if (!values.length) return { p50: 0, p99: 0, mean: 0 };
  const v = [...values].sort((a, b) => a - b);
  const q = (p: number) => v[Math.min(v.length - 1, Math.max(0, Math.ceil(p * v.length) - 1))]!;
  return { p50: q(0.5), p99: q(0.99), mean: v.reduce((s, x) => s + x, 0) / v.length };
};

function microEnv(ctx: RunContext, route: MicroRoute, rate: number, durationS: number, keyPrefix: string): Record<string, string> {
  return {
    BASE_URL: ctx.baseUrl,
    SEED: String(ctx.seed),
    ROUTE: route,
    KEY_PREFIX: keyPrefix,
    STEPS: JSON.stringify([{ rate, duration: durationS }]),
    PRE_VUS: String(Math.max(10, Math.ceil(rate * (route === "sleep" ? 0.3 : 0.25)))),
    MAX_VUS: String(Math.max(100, Math.ceil(rate * 2.5))),
  };
}

/** One k6 run of one route at one rate: the k6 step and the handler/overhead samples. */
async function microStep(ctx: RunContext, route: MicroRoute, rate: number, durationS: number, name: string) {
  const stage = `micro (${route} at ${rate}/s)`;
  ctx.checkAlive(stage);
  const out = await ctx.generator({
    k6: ctx.k6,
    script: "micro",
    env: microEnv(ctx, route, rate, durationS, `${ctx.productPrefix}-${route}`),
    outDir: ctx.rawDir,
    name,
    cpus: ctx.split?.generator,
    signal: ctx.signal,
    onTick: (live) => progress(ctx, CALL, "micro", `${route} at ${rate}/s`, { offeredRate: rate, stepS: durationS, live }),
  });
  ctx.rawFiles.push(out.csv, out.console);
  ctx.checkAlive(stage);
  if (out.exitCode !== 0)
    throw new StageError(stage, `k6 exited with code ${out.exitCode} running micro ${route} at ${rate}/s: ${out.stderrTail || "(no output)"}`);
  const op = `micro-${route}` as MeasuredOp;
  const agg = await aggregateK6(out.csv, { op, stepRates: [rate], stepDurationsS: [durationS] });
  const step = agg.steps[0];
  if (!step) throw new StageError(stage, `k6 recorded no ${op} request at ${rate}/s (raw data: ${out.csv})`);
  const handler: number[] = [];
  const overhead: number[] = [];
  const latency: number[] = [];
  await streamK6Csv(out.csv, (s) => {
    if (s.tags.op !== op) return;
    if (s.metric === "micro_handler") handler.push(s.value);
    else if (s.metric === "micro_overhead") overhead.push(s.value);
    else if (s.metric === "http_req_duration" && s.status === 200) latency.push(s.value);
  });
  return { step, handler, overhead, latency };
}

async function postJson<T>(ctx: RunContext, path: string, body: object, timeoutMs: number): Promise<{ body: T; ms: number }> {
  const started = performance.now();
  let res: Response;
  try {
    res = await fetch(`${ctx.baseUrl}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
      signal: AbortSignal.any([AbortSignal.timeout(timeoutMs), ...(ctx.signal ? [ctx.signal] : [])]),
    });
  } catch (e) {
    throw new StageError(`micro (${path})`, `POST ${path} ${JSON.stringify(body)} got no answer within ${timeoutMs / 1000} s: ${(e as Error).message}`);
  }
  const text = await res.text();
  if (res.status !== 200) throw new StageError(`micro (${path})`, `POST ${path} ${JSON.stringify(body)} answered ${res.status}: ${text.slice(0, 300)}`);
  return { body: JSON.parse(text) as T, ms: performance.now() - started };
}

/** A check of an answer against the spec; a wrong answer fails the run: its numbers would measure something else. */
function expectEqual(what: string, got: unknown, want: unknown): void {
  if (got !== want) throw new StageError("micro", `${what}: the target answered ${JSON.stringify(got)}, the spec needs ${JSON.stringify(want)}`);
}

export async function runMicro(ctx: RunContext, plan: MicroPlan, declared: boolean): Promise<MicroResult> {
  if (!declared) return { supported: false, reason: 'target.json does not declare "micro": true (docs/spec.md section 8)' };
  const notes: string[] = [];

  // 1. Overhead: every route at every fixed rate.
  const overhead: MicroOverhead[] = [];
  for (const route of MICRO_ROUTES) {
    const p = MICRO_PARAMETER[route];
    for (const rate of plan.overheadRates) {
      const r = await microStep(ctx, route, rate, plan.overheadStepS, `micro-${route}-${rate}`);
      if (!r.handler.length) throw new StageError("micro", `micro ${route} at ${rate}/s: no answer carried handlerNs (docs/spec.md 8 requires it)`);
      const verdict = judgeStep(r.step);
      if (!verdict.sustainable) notes.push(`${route} at ${rate}/s was not sustainable (${verdict.reasons.join("; ")}): its latency includes queueing`);
      overhead.push({
        route,
        parameters: p ? { [p.name]: p.default } : {},
        offeredRate: rate,
        achievedRate: r.step.achievedRate,
        requests: r.step.requests,
        errors: r.step.errors,
        latencyMs: stats(r.latency),
        handlerMs: stats(r.handler),
        overheadMs: stats(r.overhead),
      });
    }
  }

  // 2. The highest sustainable rate of empty.
  let n = 0;
  const knee = await findKnee({ ...plan.emptyKnee }, async (rate) => {
    const r = await microStep(ctx, "empty", rate, plan.emptyStepS, `micro-empty-ramp-${n++}`);
    return { rate, sustainable: judgeStep(r.step).sustainable };
  });
  progress(ctx, CALL, "micro", `empty: sustainable ${knee.sustainableRate ?? "none"}/s (${knee.stoppedBecause})`);

  // 3. Messaging: one request each, timed by the target.
  const pingpong: MicroPingPong[] = [];
  for (const c of plan.pingpong) {
    progress(ctx, CALL, "micro", `ping-pong: ${c.pairs} pairs x ${c.messages} round trips of ${c.bytes} B`);
    ctx.checkAlive("micro");
    const { body, ms } = await postJson<{ messages: number; totalNs: number; histogram: Array<[number | null, number]> }>(ctx, "/micro/pingpong", c, 600_000);
    expectEqual(`pingpong ${JSON.stringify(c)}: messages`, body.messages, c.pairs * c.messages);
    const problems = histogramProblems(body.histogram, c.pairs * c.messages);
    if (problems.length) throw new StageError("micro", `pingpong ${JSON.stringify(c)}: ${problems.join("; ")}`);
    pingpong.push({
      ...c,
      messages: body.messages,
      totalNs: body.totalNs,
      messagesPerS: body.totalNs > 0 ? body.messages / (body.totalNs / 1e9) : 0,
      rttNs: { p50: histogramQuantile(body.histogram, 0.5), p99: histogramQuantile(body.histogram, 0.99) },
      histogram: body.histogram,
      requestMs: ms,
    });
  }
  const divide: MicroDivide[] = [];
  for (const c of plan.divide) {
    progress(ctx, CALL, "micro", `divide: ${c.items} items, fan-out ${c.fanout}`);
    ctx.checkAlive("micro");
    const seed = ctx.seed;
    const { body, ms } = await postJson<{ items: number; first: number; last: number; checksum: number; entities: number; totalNs: number }>(
      ctx,
      "/micro/divide",
      { ...c, seed },
      600_000,
    );
    const want = divideExpected({ ...c, seed });
    expectEqual(`divide ${JSON.stringify(c)}: items`, body.items, c.items);
    expectEqual(`divide ${JSON.stringify(c)}: first`, body.first, want.first);
    expectEqual(`divide ${JSON.stringify(c)}: last`, body.last, want.last);
    expectEqual(`divide ${JSON.stringify(c)}: checksum (the output is not sorted)`, body.checksum, want.checksum);
    expectEqual(`divide ${JSON.stringify(c)}: entities`, body.entities, want.entities);
    divide.push({ ...c, entities: body.entities, totalNs: body.totalNs, requestMs: ms });
  }
  const big: MicroBig[] = [];
  for (const c of plan.big) {
    progress(ctx, CALL, "micro", `big: ${c.entities} entities, ${c.messages} messages`);
    ctx.checkAlive("micro");
    const { body, ms } = await postJson<{ delivered: number; totalNs: number }>(ctx, "/micro/big", { ...c, seed: ctx.seed }, 600_000);
    expectEqual(`big ${JSON.stringify(c)}: delivered`, body.delivered, c.messages);
    big.push({ ...c, totalNs: body.totalNs, messagesPerS: body.totalNs > 0 ? c.messages / (body.totalNs / 1e9) : 0, requestMs: ms });
  }
  return { supported: true, overhead, emptyMaxRate: { sustainableRate: knee.sustainableRate, resolution: knee.resolution }, pingpong, divide, big, notes };
}
