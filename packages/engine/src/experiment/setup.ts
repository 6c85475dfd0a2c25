/**
 * What a run does before its cells: seeding the catalogue and, before the
 * analytics cell, populating the co-purchase graph. A campaign does both once
 * per target (buildPopulatedState) and starts every trial on a copy of the
 * result; such a trial adopts the build's records instead of writing its own
 * (adoptPopulatedState), so its audit still knows every price and every
 * checkout since the data was empty.
 */
import { copyFileSync, existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import type { CellChoice, LoadGenerator, PopulatedState, ProgressEvent } from "@sfbench/core";
import { readAuditRecords } from "../audit/records.ts";
import { StageError, type RunContext } from "./phase.ts";
import type { ProfileSettings } from "./profiles.ts";

export type SetupScript = "seed" | "populate";

/** The product ids' prefix of a run: a fresh product set per run (or per populated state), so earlier runs against the same target cannot disturb the audit. */
export const productPrefixOf = (runId: string) => `r${runId.slice(0, 8)}`;

/** k6's environment for the seed and every workload script of a run. */
export function setupEnv(ctx: Pick<RunContext, "baseUrl" | "seed" | "settings" | "productPrefix">): Record<string, string> {
  return { BASE_URL: ctx.baseUrl, SEED: String(ctx.seed), PRODUCTS: String(ctx.settings.products), PRODUCT_PREFIX: ctx.productPrefix };
}

/** The populate script's environment: the profile's checkouts, at most as fast as the target's manifest asks. */
export function populateScriptEnv(env: Record<string, string>, ctx: Pick<RunContext, "settings" | "populateCheckoutsPerSecond">): Record<string, string> {
  const rate = ctx.populateCheckoutsPerSecond;
  return { ...env, POPULATE: String(ctx.settings.populate), ...(rate ? { RATE: String(rate) } : {}) };
}

/** Whether these cells need the co-purchase graph (an analytics cell). */
export const needsPopulate = (cells: readonly CellChoice[]) => cells.some((c) => c.workload === "analytics");

/** Seeding and populating: closed-loop setup runs, not measured; they must succeed. Their records go into the context for the audit. */
export async function setupScript(ctx: RunContext, script: SetupScript, env: Record<string, string>, stage: string): Promise<void> {
  const cell = script === "populate" ? "analytics" : "-";
  ctx.checkAlive(stage);
  const out = await ctx.generator({
    k6: ctx.k6,
    script,
    env,
    outDir: ctx.rawDir,
    name: script,
    cpus: ctx.split?.generator,
    signal: ctx.signal,
    onTick: (live) => ctx.onProgress({ cell, phase: script, detail: `${live.requests} requests`, live }),
  });
  ctx.rawFiles.push(out.csv, out.console);
  ctx.checkAlive(stage);
  if (out.exitCode !== 0) throw new StageError(stage, `${script} failed (k6 exit code ${out.exitCode}): ${out.stderrTail || "(no output)"}`);
  const retried = await adoptRecords(ctx, out.console);
  if (retried) {
    const detail = `${retried.retried} of ${retried.products} products were written on a later try: the first went unanswered (${script}.console.log says how)`;
    ctx.onProgress({ cell, phase: script, note: true, detail });
  }
}

/** Prices and checkouts of a setup script's console into the context; how many products needed a retry, when any did. */
async function adoptRecords(ctx: RunContext, console: string): Promise<{ retried: number; products: number } | undefined> {
  const { products, checkouts } = await readAuditRecords(console);
  for (const p of products) ctx.prices.set(p.product, p.price);
  // populate's orders build the co-purchase graph that the analytics cell's audit compares
  ctx.allCheckouts.push(...checkouts);
  const retried = products.filter((p) => (p.tries ?? 1) > 1).length;
  return retried ? { retried, products: products.length } : undefined;
}

export interface PopulatedBuild {
  buildId: string;
  baseUrl: string;
  k6: string;
  generator: LoadGenerator;
  seed: number;
  settings: ProfileSettings;
  cells: readonly CellChoice[];
  /** the target manifest's populate.checkoutsPerSecond */
  populateCheckoutsPerSecond?: number;
  /** the build's raw data goes to <rawRoot>/<buildId>/ */
  rawRoot: string;
  checkAlive: (stage: string) => void;
  signal?: AbortSignal;
  onProgress?: (event: ProgressEvent) => void;
}

/**
 * Seeds the started target and, when a cell needs it, populates it: the
 * state every trial of a campaign starts from. The caller stops the target
 * and copies its data; `bytes` is the caller's to fill in.
 */
export async function buildPopulatedState(b: PopulatedBuild): Promise<Omit<PopulatedState, "bytes">> {
  const started = Date.now();
  const rawDir = join(b.rawRoot, b.buildId);
  mkdirSync(rawDir, { recursive: true });
  const ctx: RunContext = {
    baseUrl: b.baseUrl,
    k6: b.k6,
    generator: b.generator,
    seed: b.seed,
    settings: b.settings,
    rawDir,
    productPrefix: productPrefixOf(b.buildId),
    targetPids: () => [],
    checkAlive: b.checkAlive,
    onProgress: b.onProgress ?? (() => {}),
    allCheckouts: [],
    prices: new Map(),
    rawFiles: [],
    ...(b.signal ? { signal: b.signal } : {}),
    ...(b.populateCheckoutsPerSecond ? { populateCheckoutsPerSecond: b.populateCheckoutsPerSecond } : {}),
  };
  const env = setupEnv(ctx);
  ctx.onProgress({ cell: "-", phase: "seed", detail: `${b.settings.products} products, once for every trial` });
  await setupScript(ctx, "seed", env, "seed");
  const populate = needsPopulate(b.cells);
  if (populate) {
    ctx.onProgress({ cell: "analytics", phase: "populate", detail: `${b.settings.populate} checkouts build the co-purchase graph, once for every trial` });
    await setupScript(ctx, "populate", populateScriptEnv(env, ctx), "populate");
  }
  return {
    buildId: b.buildId,
    builtAt: new Date(started).toISOString(),
    products: b.settings.products,
    ...(populate ? { populate: b.settings.populate } : {}),
    buildS: (Date.now() - started) / 1000,
  };
}

/**
 * A trial on a restored populated state: the build's seed (and populate)
 * console logs are copied into this run's raw data, and their prices and
 * checkouts are the audit's, as if this run had written them.
 */
export async function adoptPopulatedState(ctx: RunContext, state: PopulatedState, rawRoot: string): Promise<void> {
  const scripts: SetupScript[] = state.populate !== undefined ? ["seed", "populate"] : ["seed"];
  for (const script of scripts) {
    const from = join(rawRoot, state.buildId, `${script}.console.log`);
    if (!existsSync(from))
      throw new StageError(script, `the populated state's ${script} records are gone (${from}): the trial cannot audit what it did not see written`);
    const to = join(ctx.rawDir, `${script}.console.log`);
    copyFileSync(from, to);
    ctx.rawFiles.push(to);
    await adoptRecords(ctx, to);
  }
  if (ctx.prices.size < state.products)
    throw new StageError("seed", `the populated state's seed records name ${ctx.prices.size} products, not the ${state.products} it says it seeded`);
}

/**
 * Whether the target came back with the state it was restored from: the
 * first, a middle and the last seeded product answer with their seeded
 * price. A target that empties itself on a clean stop would otherwise be
 * measured against a catalogue it no longer has.
 */
export async function checkRestored(ctx: Pick<RunContext, "baseUrl" | "prices">, state: PopulatedState): Promise<void> {
  const ids = [...ctx.prices.keys()];
  for (const id of new Set([ids[0], ids[Math.floor(ids.length / 2)], ids[ids.length - 1]])) {
    if (id === undefined) continue;
    let answer: string;
    try {
      const res = await fetch(`${ctx.baseUrl}/products/${encodeURIComponent(id)}`, { signal: AbortSignal.timeout(10_000) });
      const body = (await res.json().catch(() => undefined)) as { price?: unknown } | undefined;
      if (res.status === 200 && body?.price === ctx.prices.get(id)) continue;
      answer = `answers ${res.status}${res.status === 200 ? ` with price ${String(body?.price)}, not ${ctx.prices.get(id)}` : ""}`;
    } catch (e) {
      answer = `does not answer (${(e as Error).message})`;
    }
    throw new StageError(
      "seed",
      `the target came back without the populated state ${state.buildId.slice(0, 8)} it was started on: product ${id} ${answer}; does a clean stop keep its data?`,
    );
  }
}
