import { parseResult } from "@sfbench/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildCompareData } from "../src/charts/index.ts";
import { getHeadline } from "../src/server/queries/badge.ts";
import { getCompare } from "../src/server/queries/compare.ts";
import { browser } from "./helpers/callers.ts";
import { testDatabase, type TestDatabase } from "./helpers/database.ts";
import { importFixture } from "./helpers/results.ts";

let t: TestDatabase;
beforeAll(async () => {
  t = await testDatabase();
  await importFixture(t.db, "one", { capacity: 1000, seed: 1 });
  await importFixture(t.db, "one", { capacity: 1800, seed: 2, environment: { kind: "local", nodes: 2 } });
  await importFixture(t.db, "two", { capacity: 700, seed: 3 });
  await importFixture(t.db, "three", { capacity: 900, seed: 4, environment: { kind: "local", nodes: 2 } });
  await importFixture(t.db, "down", { failed: true, seed: 5 });
  const rater = await browser(t.db, "rater@example.com");
  // an account with a verified address, so its rating counts (src/server/ratings/counted.ts)
  await t.db.user.update({ where: { id: rater.user.id }, data: { emailVerifiedAt: new Date() } });
  await rater.api.ratings.rate({ slug: "two", programmingModel: 4, understandability: 2 });
});
afterAll(async () => {
  await t?.drop();
});

describe("compare", () => {
  it("picks the environment most of the systems share and gives each its latest run's stored document", async () => {
    const c = await getCompare(t.db, ["one", "two"]);
    expect(c.environment).toEqual({ kind: "local", nodes: 1 });
    expect(c.input.systems.map((s) => s.slug)).toEqual(["one", "two"]);
    for (const s of c.input.systems) expect(parseResult(s.doc).ok).toBe(true);
    expect(c.input.systems[1]!.ratings).toEqual({ programmingModel: 4, understandability: 2, count: 1 });
    expect(c.input.systems[0]!.scalability?.map((p) => p.nodes)).toEqual([1, 2]);
    expect(c.input.systems[0]!.scalability![1]!.sustainableRate).toBeGreaterThan(c.input.systems[0]!.scalability![0]!.sustainableRate!);
  });

  it("follows the environment in the URL, and leaves out systems without a run there", async () => {
    const c = await getCompare(t.db, ["one", "two", "three"], { kind: "local", nodes: 2 });
    expect(c.input.systems.map((s) => s.slug)).toEqual(["one", "three"]);
    expect(c.systems.find((s) => s.slug === "two")?.runId).toBeNull();
  });

  it("never plots a failed run, and names unknown systems", async () => {
    const c = await getCompare(t.db, ["one", "down", "ghost"]);
    expect(c.input.systems.map((s) => s.slug)).toEqual(["one"]);
    expect(c.unknown).toEqual(["ghost"]);
  });

  it("feeds the charts: buildCompareData accepts the input", async () => {
    const c = await getCompare(t.db, ["one", "two"]);
    const data = buildCompareData(c.input);
    expect(data.systems.map((s) => s.slug)).toEqual(["one", "two"]);
    expect(data.cells.length).toBeGreaterThan(0);
  });
});

describe("badge headline", () => {
  it("is the checkout sustainable rate of the latest completed run; null for a system without one", async () => {
    const one = await getHeadline(t.db, "one");
    expect(one?.result?.distribution).toBe("uniform");
    const latest = await t.db.cellResult.findFirstOrThrow({
      where: { run: { system: { slug: "one" } }, workload: "checkout", distribution: "uniform" },
      orderBy: { run: { finishedAt: "desc" } },
    });
    expect(one?.result?.rate).toBe(latest.sustainableRate);
    expect((await getHeadline(t.db, "down"))?.result).toBeNull();
    expect(await getHeadline(t.db, "ghost")).toBeNull();
  });
});
