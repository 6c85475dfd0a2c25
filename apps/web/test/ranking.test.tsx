/**
 * The leaderboard ranks only sustainable rates whose knee is
 * known to 10% or better, labelled with the profile and that resolution; smoke
 * tests (quick profile) stay on their run pages; a run that completes shows on
 * the next page load although the leaderboard is cached.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { renderToStaticMarkup } from "react-dom/server";
import { buildRunData } from "../src/charts/data/run.ts";
import { LeaderboardTable } from "../src/components/leaderboard-table.tsx";
import { RunResults } from "../src/components/run-results.tsx";
import { env } from "../src/env.ts";
import { getLeaderboard } from "../src/server/queries/leaderboard.ts";
import { LeaderboardFilter } from "../src/shared/leaderboard-params.ts";
import { testDatabase, type TestDatabase } from "./helpers/database.ts";
import { importFixture } from "./helpers/results.ts";

let t: TestDatabase;
const day = (d: number) => new Date(Date.UTC(2026, 10, d, 12));
beforeAll(async () => {
  t = await testDatabase();
});
afterAll(async () => {
  await t?.drop();
});

const board = () => getLeaderboard(t.db, LeaderboardFilter.parse({}));

describe("ranking and the leaderboard cache", () => {
  it("shows a run that completed after the empty leaderboard was cached, on the next page load", async () => {
    expect(env.SFBENCH_LEADERBOARD_CACHE_SECONDS).toBeGreaterThan(0); // the cache is on
    expect((await board()).rows).toEqual([]);
    await importFixture(t.db, "alpha", { capacity: 800, seed: 1, finishedAt: day(1) });
    const rows = (await board()).rows;
    expect(rows.map((r) => r.slug)).toEqual(["alpha"]);
  });

  it("labels every ranked rate with its profile and its knee's resolution (10% or better)", async () => {
    const alpha = (await board()).rows.find((r) => r.slug === "alpha")!;
    expect(alpha.profile).toBe("standard");
    expect(alpha.rates["checkout.uniform"]).toBeGreaterThan(0);
    expect(alpha.resolutions["checkout.uniform"]).toBeLessThanOrEqual(0.1);
    const html = renderToStaticMarkup(<LeaderboardTable board={await board()} />);
    expect(html).toContain("standard profile");
    expect(html).toMatch(/data-resolution="0\.0\d+"/);
    expect(html).toContain("checkout uniform (checkouts/s)");
    expect(html).toContain("analytics uniform (queries/s)");
    expect(html).not.toContain("req/s");
  });

  it("keeps smoke tests (coarse knees) off the leaderboard, and a newer smoke test does not hide an older ranked run", async () => {
    await importFixture(t.db, "beta", { capacity: 900, seed: 2, finishedAt: day(2), smoke: true });
    await importFixture(t.db, "alpha", { capacity: 850, seed: 3, finishedAt: day(3), smoke: true });
    const rows = (await board()).rows;
    expect(rows.map((r) => r.slug)).toEqual(["alpha"]);
    const ranked = await t.db.run.findFirstOrThrow({ where: { system: { slug: "alpha" }, profile: "standard" } });
    expect(rows[0]!.runId).toBe(ranked.id);
    // listed under the table as smoke tests, newest first, linked to their run pages
    const b = await board();
    expect(b.smoke.map((r) => `${r.slug}:${r.profile}`)).toEqual(["alpha:quick", "beta:quick"]);
    const html = renderToStaticMarkup(<LeaderboardTable board={b} />);
    expect(html).toContain("Recent smoke tests (not ranked)");
    expect(html).toContain(`href="/runs/${b.smoke[1]!.runId}"`);
  });

  it("says on the run page why the knee search stopped and that a smoke test is not ranked", async () => {
    const smokeRun = await t.db.run.findFirstOrThrow({ where: { system: { slug: "beta" } }, include: { document: true } });
    const doc = smokeRun.document!.document as never;
    const html = renderToStaticMarkup(<RunResults doc={doc} />);
    expect(html).toContain("smoke test");
    expect(html).toContain("the profile&#x27;s bisection steps ran out before the target resolution");
    expect(html).toContain("checkouts/s");
    expect(html).toContain("queries/s");
    const data = buildRunData(doc);
    const ramp = data.cells.find((c) => c.ref.key === "checkout/uniform")!.ramp!;
    expect(ramp.unit).toBe("checkouts/s");
    expect(ramp.knee).toMatchObject({ stoppedBecause: "fine-steps-exhausted", ranked: false, targetResolution: null });
    expect(ramp.knee!.rankNote).toMatch(/^smoke test, not ranked: the knee is known only to \d+(\.\d)?% \(ranked: 10% or better\)/);
  });

  it("says next to the anomalies when the target asked the audit for a slower pace, and says nothing otherwise", async () => {
    const run = await t.db.run.findFirstOrThrow({ where: { system: { slug: "beta" } }, include: { document: true } });
    const doc = structuredClone(run.document!.document) as { cells: { parameters: Record<string, unknown> }[] };
    expect(renderToStaticMarkup(<RunResults doc={doc as never} />)).not.toContain("audit paced");
    for (const c of doc.cells) c.parameters.auditReadsPerSecond = 200;
    expect(renderToStaticMarkup(<RunResults doc={doc as never} />)).toContain("audit paced at 200 reads/s (target.json)");
  });

  it("shows the cores the target used at its knee beside the cores it was given", async () => {
    const run = await t.db.run.findFirstOrThrow({ where: { system: { slug: "alpha" }, profile: "standard" }, include: { document: true } });
    const doc = structuredClone(run.document!.document) as {
      environment: { cpuSplit?: { generator: string; target: string } };
      cells: { maxThroughput?: { kneeCores?: number } }[];
    };
    doc.environment.cpuSplit = { generator: "0", target: "1" };
    doc.cells[0]!.maxThroughput!.kneeCores = 0.934;
    const html = renderToStaticMarkup(<RunResults doc={doc as never} />);
    expect(html).toContain("0.93 of 1 core (93%)");
    // a document from before the ramp sampled the target says nothing about it
    delete doc.cells[0]!.maxThroughput!.kneeCores;
    expect(renderToStaticMarkup(<RunResults doc={doc as never} />)).toMatch(/data-testid="knee-cores">—</);
  });
});
