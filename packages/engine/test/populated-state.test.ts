/**
 * A trial on a campaign's populated state adopts the build's seed and
 * populate records as its own (copied into its raw data), so its audit knows
 * every price and checkout since the data was empty; without them it fails
 * at once, naming what is missing, instead of auditing against nothing; and
 * a target that came back without the state is not measured.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { PopulatedState } from "@sfbench/core";
import { adoptPopulatedState, checkRestored, populateScriptEnv, productPrefixOf } from "../src/experiment/setup.ts";
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

  it("refuses to measure a target that came back without the state: a product missing or with another price", async () => {
    const prices = new Map([
      ["r0c1d2e3f-0", 10],
      ["r0c1d2e3f-1", 11],
    ]);
    const answers: Record<string, { status: number; body: object }> = {
      "/products/r0c1d2e3f-0": { status: 200, body: { id: "r0c1d2e3f-0", price: 10, stock: 5 } },
      "/products/r0c1d2e3f-1": { status: 200, body: { id: "r0c1d2e3f-1", price: 11, stock: 5 } },
    };
    const server = createServer((req, res) => {
      const a = answers[req.url ?? ""] ?? { status: 404, body: { error: "not-found" } };
      res.writeHead(a.status, { "content-type": "application/json" }).end(JSON.stringify(a.body));
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      await checkRestored({ baseUrl, prices }, state);
      answers["/products/r0c1d2e3f-1"] = { status: 200, body: { id: "r0c1d2e3f-1", price: 99, stock: 5 } };
      await expect(checkRestored({ baseUrl, prices }, state)).rejects.toThrow(/product r0c1d2e3f-1 answers 200 with price 99, not 11/);
      delete answers["/products/r0c1d2e3f-0"];
      const e = await checkRestored({ baseUrl, prices }, state).catch((x: unknown) => x);
      expect(e).toBeInstanceOf(StageError);
      expect((e as Error).message).toMatch(/came back without the populated state 0c1d2e3f it was started on: product r0c1d2e3f-0 answers 404/);
    } finally {
      server.close();
    }
  });
});

describe("the populate phase's pace", () => {
  it("is the manifest's checkoutsPerSecond when it asks for one, else as fast as the VUs go", () => {
    const settings = { populate: 20000 } as RunContext["settings"];
    const env = { BASE_URL: "http://127.0.0.1:1" };
    expect(populateScriptEnv(env, { settings, populateCheckoutsPerSecond: 25 })).toEqual({ ...env, POPULATE: "20000", RATE: "25" });
    expect(populateScriptEnv(env, { settings })).toEqual({ ...env, POPULATE: "20000" });
  });
});
