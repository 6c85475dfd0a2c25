/**
 * A trial on a campaign's populated state adopts the build's seed and
 * populate records as its own (copied into its raw data), so its audit knows
 * every price and checkout since the data was empty; without them it fails
 * at once, naming what is missing, instead of auditing against nothing.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { PopulatedState } from "@sfbench/core";
import { adoptPopulatedState, productPrefixOf } from "../src/experiment/setup.ts";
import { StageError, type RunContext } from "../src/experiment/phase.ts";

const buildId = "0c1d2e3f-0000-4000-8000-000000000000";
const state: PopulatedState = { buildId, builtAt: "2026-12-03T11:51:00.000Z", products: 2, populate: 1, buildS: 3, bytes: 1 };
const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

/** k6's --log-format=json wrapper around an audit record, as the console logs hold them */
const line = (record: object) => JSON.stringify({ level: "info", msg: JSON.stringify({ sfbench: "audit", ...record }) });

function setup(files: Partial<Record<"seed" | "populate", string[]>>) {
  const root = mkdtempSync(join(tmpdir(), "sfbench-populated-"));
  dirs.push(root);
  mkdirSync(join(root, buildId));
  for (const [script, lines] of Object.entries(files)) writeFileSync(join(root, buildId, `${script}.console.log`), lines.join("\n") + "\n");
  const rawDir = join(root, "trial");
  mkdirSync(rawDir);
  const ctx = { rawDir, prices: new Map(), allCheckouts: [], rawFiles: [] } as unknown as RunContext;
  return { root, rawDir, ctx };
}

const product = (i: number) => line({ kind: "product", product: `${productPrefixOf(buildId)}-${i}`, price: 10 + i, stockBefore: 0, stockAdded: 100 });
const checkout = line({
  kind: "checkout",
  user: "u",
  credits: 5,
  cart: "c",
  items: [[`${productPrefixOf(buildId)}-0`, 1]],
  status: 200,
  orderId: "o",
  total: 10,
});

describe("a trial on a populated state", () => {
  it("takes the build's prices and checkouts as its own, with their records in its raw data", async () => {
    const { root, rawDir, ctx } = setup({ seed: [product(0), product(1)], populate: [checkout] });
    await adoptPopulatedState(ctx, state, root);
    expect([...ctx.prices]).toEqual([
      ["r0c1d2e3f-0", 10],
      ["r0c1d2e3f-1", 11],
    ]);
    expect(ctx.allCheckouts.map((c) => c.orderId)).toEqual(["o"]);
    expect(ctx.rawFiles).toEqual([join(rawDir, "seed.console.log"), join(rawDir, "populate.console.log")]);
    expect(readFileSync(join(rawDir, "populate.console.log"), "utf8")).toContain('\\"orderId\\":\\"o\\"');
  });

  it("fails at the stage whose records are gone, naming the file", async () => {
    const { root, ctx } = setup({ seed: [product(0), product(1)] });
    const e = await adoptPopulatedState(ctx, state, root).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(StageError);
    expect((e as StageError).stage).toBe("populate");
    expect((e as Error).message).toMatch(/the populated state's populate records are gone \(.*populate\.console\.log\)/);
  });

  it("fails when the seed records name fewer products than the state says it holds", async () => {
    const { root, ctx } = setup({ seed: [product(0)], populate: [checkout] });
    await expect(adoptPopulatedState(ctx, state, root)).rejects.toThrow(/name 1 products, not the 2 it says it seeded/);
  });
});
