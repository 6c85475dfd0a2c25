/**
 * The board ranks what it can defend: a system's rate is the median of its
 * latest campaign's trials (a busy trial once, by its repeat), with the
 * interval of the median and n from core stats; overlapping intervals share a rank; a
 * single run is provisional, listed after every ranked median; profile and
 * machine class filter; the ratio to the reference comes from the same rounds.
 */
import { summarize } from "@sfbench/core/stats";
import { renderToStaticMarkup } from "react-dom/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PopulationHeader } from "../src/components/leaderboard-filters.tsx";
import { LeaderboardTable } from "../src/components/leaderboard-table.tsx";
import { getHeadline } from "../src/server/queries/badge.ts";
import { getCompare } from "../src/server/queries/compare.ts";
import { getLeaderboard } from "../src/server/queries/leaderboard.ts";
import { getSystemCampaigns } from "../src/server/queries/system-campaigns.ts";
import { campaignChange } from "../src/shared/campaign-change.ts";
import { readCompareSlugs } from "../src/shared/compare-params.ts";
import { LeaderboardFilter } from "../src/shared/leaderboard-params.ts";
import { testDatabase, type TestDatabase } from "./helpers/database.ts";
import { importCampaignFixture, importFixture } from "./helpers/results.ts";

let t: TestDatabase;
const OTHER_MACHINE = { cpuModel: "Intel Xeon 8375C", cores: 2, memoryBytes: 8 * 2 ** 30 };
beforeAll(async () => {
  t = await testDatabase();
  await importCampaignFixture(t.db, [
    { name: "node-postgres", capacities: [1000, 1040, 980] },
    { name: "alpha", capacities: [1500, 1620, 1560], busyRounds: [2] },
    { name: "beta", capacities: [1540, 1580, 1500] },
    { name: "gamma", capacities: [600, 610, 590] },
  ]);
  // an earlier campaign: gamma was much slower then (a change), beta about the same (noise)
  await importCampaignFixture(
    t.db,
    [
      { name: "beta", capacities: [1520, 1570, 1510] },
      { name: "gamma", capacities: [300, 310, 305] },
    ],
    { start: new Date(Date.UTC(2026, 10, 21, 6)), seed: 2 },
  );
  // an older single run of alpha: the campaign is shown, not it
  await importFixture(t.db, "alpha", { capacity: 400, seed: 90, finishedAt: new Date(Date.UTC(2026, 10, 20)) });
  // a newer single run of a faster system: provisional, never above a ranked median
  await importFixture(t.db, "solo", { capacity: 4000, seed: 91, finishedAt: new Date(Date.UTC(2026, 10, 25)) });
  // another machine
  await importFixture(t.db, "other", { capacity: 900, seed: 92, machine: OTHER_MACHINE });
});
afterAll(async () => {
  await t?.drop();
});

const board = (filter: Partial<LeaderboardFilter> = {}) => getLeaderboard(t.db, LeaderboardFilter.parse(filter));

/** The ranked checkout uniform rates of a system's counted trials, read back from the database. */
async function storedTrialRates(slug: string): Promise<number[]> {
  const runs = await t.db.run.findMany({
    where: { system: { slug }, campaignId: { not: null } },
    include: { cells: true },
    orderBy: [{ trial: "asc" }, { attempt: "desc" }],
  });
  const last = runs.filter((r, i) => i === 0 || runs[i - 1]!.trial !== r.trial);
  return last.map((r) => r.cells.find((c) => c.workload === "checkout" && c.distribution === "uniform" && c.ranked)!.sustainableRate!);
}

describe("the board of campaigns", () => {
  it("shows the median of the latest campaign's trials with min, max, the interval of the median and n; a busy trial counts once, by its repeat", async () => {
    const { rows } = await board();
    const alpha = rows.find((r) => r.slug === "alpha")!;
    const rates = await storedTrialRates("alpha");
    expect(rates).toHaveLength(3);
    const s = summarize(rates);
    expect(alpha.figures["checkout.uniform"]).toMatchObject({ n: 3, median: s.median, min: s.min, max: s.max, interval: s.interval });
    expect(alpha.rates["checkout.uniform"]).toBe(s.median);
    expect(alpha).toMatchObject({ trials: 3, busyTrials: 0, machineClass: "8 cores, AMD EPYC 7B13, 16 GiB" });
    expect(alpha.campaignId).not.toBeNull();
    // the busy first attempt of round 2 measured about half: it is not among the counted values
    expect(Math.min(...rates)).toBeGreaterThan(s.median / 1.5);
  });

  it("ranks by the median: overlapping intervals share a rank (tied), a single run is provisional and listed after every ranked median", async () => {
    const { rows } = await board({ machine: "8 cores, AMD EPYC 7B13, 16 GiB" });
    expect(rows.map((r) => r.slug)).toEqual([
      expect.stringMatching(/^(alpha|beta)$/),
      expect.stringMatching(/^(alpha|beta)$/),
      "node-postgres",
      "gamma",
      "solo",
    ]);
    const standing = Object.fromEntries(rows.map((r) => [r.slug, r.standing]));
    expect(standing.alpha).toEqual({ rank: 1, tiedWith: 1, provisional: false });
    expect(standing.beta).toEqual({ rank: 1, tiedWith: 1, provisional: false });
    expect(standing["node-postgres"]).toEqual({ rank: 3, tiedWith: 0, provisional: false });
    expect(standing.gamma).toEqual({ rank: 4, tiedWith: 0, provisional: false });
    expect(standing.solo).toEqual({ rank: null, tiedWith: 0, provisional: true });
    // the single run measured more than anyone, and still does not rank above a median
    expect(rows.at(-1)!.rates["checkout.uniform"]).toBeGreaterThan(rows[0]!.rates["checkout.uniform"]!);
    expect(rows.find((r) => r.slug === "solo")!.figures["checkout.uniform"]).toMatchObject({ n: 1, interval: null });
  });

  it("gives p50, p99 and per-core figures as medians of the same trials with intervals, and ranks by them with ties", async () => {
    const byP99 = await board({ sort: "p99" });
    const alpha = byP99.rows.find((r) => r.slug === "alpha")!;
    const runs = await t.db.run.findMany({
      where: { system: { slug: "alpha" }, campaignId: { not: null } },
      include: { cells: true },
      orderBy: [{ trial: "asc" }, { attempt: "desc" }],
    });
    const counted = runs.filter((r, i) => i === 0 || runs[i - 1]!.trial !== r.trial);
    const p99s = counted.map((r) => r.cells.find((c) => c.workload === "checkout" && c.distribution === "uniform")!.p99!);
    expect(alpha.focusFigures.p99).toMatchObject({ n: 3, median: summarize(p99s).median, interval: summarize(p99s).interval });
    expect(alpha.focus!.p99).toBe(summarize(p99s).median);
    // lowest p99 first; campaign rows ranked (ties share a rank), the single run provisional
    const ranked = byP99.rows.filter((r) => r.standing && !r.standing.provisional);
    expect(ranked.map((r) => r.slug).sort()).toEqual(["alpha", "beta", "gamma", "node-postgres"]);
    expect(ranked[0]!.standing!.rank).toBe(1);
    expect(ranked.map((r) => r.focus!.p99!)).toEqual([...ranked.map((r) => r.focus!.p99!)].sort((a, b) => a - b));
    expect(byP99.rows.find((r) => r.slug === "solo")!.standing).toEqual({ rank: null, tiedWith: 0, provisional: true });
    const byCore = await board({ sort: "throughputPerCore" });
    expect(byCore.rows.find((r) => r.slug === "alpha")!.standing?.rank).toBeGreaterThanOrEqual(1);
  });

  it("gives each system its ratio to the reference from the same rounds, with its interval", async () => {
    const { rows } = await board();
    const gamma = rows.find((r) => r.slug === "gamma")!.figures["checkout.uniform"]!;
    expect(gamma.ratio).toMatchObject({ reference: "node-postgres", n: 3 });
    expect(gamma.ratio!.ratio).toBeLessThan(1);
    expect(gamma.ratio!.interval!.high).toBeLessThan(1);
    expect(rows.find((r) => r.slug === "node-postgres")!.figures["checkout.uniform"]!.ratio).toBeUndefined();
    expect(rows.find((r) => r.slug === "solo")!.figures["checkout.uniform"]!.ratio).toBeUndefined();
  });

  it("opens on the population with the most ranked systems, ranks within it, says which, and links the others", async () => {
    const opened = await board();
    expect(opened.population).toEqual({ kind: "local", profile: "standard", machineClass: "8 cores, AMD EPYC 7B13, 16 GiB" });
    // the other machine's 900/s would rank between node-postgres and gamma if the board mixed machines
    expect(opened.rows.map((r) => r.slug)).not.toContain("other");
    expect(opened.populations.map((p) => [p.machineClass, p.systems])).toEqual([
      ["8 cores, AMD EPYC 7B13, 16 GiB", 5],
      ["2 cores, Intel Xeon 8375C, 8 GiB", 1],
    ]);
    const other = await board({ machine: "2 cores, Intel Xeon 8375C, 8 GiB" });
    expect(other.rows.map((r) => r.slug)).toEqual(["other"]);
    expect(other.rows[0]!.standing).toEqual({ rank: null, tiedWith: 0, provisional: true });
    expect((await board({ profile: "thesis" })).rows).toEqual([]);
    const header = renderToStaticMarkup(<PopulationHeader board={opened} />);
    expect(header).toContain("local · standard profile · 8 cores, AMD EPYC 7B13, 16 GiB");
    expect(header).toContain("1 other population");
    expect(header).toContain(`href="/?kind=local&amp;profile=standard&amp;machine=2+cores%2C+Intel+Xeon+8375C%2C+8+GiB"`);
  });

  it("draws medians, intervals, n and ties in the table and the chart", async () => {
    const html = renderToStaticMarkup(<LeaderboardTable board={await board()} />);
    const alpha = (await board()).rows.find((r) => r.slug === "alpha")!.figures["checkout.uniform"]!;
    const fmt = (v: number) => Math.round(v).toLocaleString("en-US");
    expect(html).toContain(`data-figure="${fmt(alpha.median)} [${fmt(alpha.interval!.low)}, ${fmt(alpha.interval!.high)}] (75%), n=3"`);
    expect(html.match(/class="badge tied"/g)).toHaveLength(2);
    expect(html).toContain('data-rank="provisional"');
    expect(html).toContain('data-testid="board-chart"');
    expect(html.match(/class="error-bar"/g)!.length).toBeGreaterThanOrEqual(4);
  });

  it("compares every system of the board at once, with each one's median, interval and n", async () => {
    const slugs = ["node-postgres", "alpha", "beta", "gamma", "solo", "other"];
    expect(readCompareSlugs({ systems: slugs.join(",") })).toMatchObject({ slugs, problem: null });
    const c = await getCompare(t.db, slugs);
    const shown = c.systems.filter((s) => s.runId);
    expect(shown.length).toBeGreaterThanOrEqual(5);
    expect(c.input.systems.length).toBe(shown.length);
    const alpha = c.systems.find((s) => s.slug === "alpha")!;
    expect(alpha.campaign).toBe(true);
    expect(alpha.figures["checkout.uniform"]).toEqual((await board()).rows.find((r) => r.slug === "alpha")!.figures["checkout.uniform"]);
    // within one population, as on the board: the other machine's system is compared only on its own machine
    expect(c.population).toEqual((await board()).population);
    expect(c.systems.find((s) => s.slug === "other")!.runId).toBeNull();
    const onOther = await getCompare(t.db, slugs, undefined, false, { machine: "2 cores, Intel Xeon 8375C, 8 GiB" });
    expect(onOther.systems.filter((s) => s.runId).map((s) => s.slug)).toEqual(["other"]);
  });

  it("puts the median of the latest campaign on the badge", async () => {
    const alpha = await getHeadline(t.db, "alpha");
    const median = (await board()).rows.find((r) => r.slug === "alpha")!.figures["checkout.uniform"]!.median;
    expect(alpha?.result).toMatchObject({ rate: median, n: 3, distribution: "uniform" });
    expect((await getHeadline(t.db, "solo"))?.result?.n).toBe(1);
  });

  it("counts every campaign of a version: the row is the latest, and says how many there were and how far apart their medians are", async () => {
    const { rows } = await board();
    const gamma = rows.find((r) => r.slug === "gamma")!;
    const medians = gamma.versionCampaigns.map((c) => c.median);
    // the earlier campaign measured about half: the row shows the latest, not the best or the worst
    expect(medians).toHaveLength(2);
    expect(medians[1]).toBe(gamma.rates["checkout.uniform"]);
    expect(medians[0]!).toBeLessThan(medians[1]! / 1.5);
    expect(rows.find((r) => r.slug === "alpha")!.versionCampaigns).toHaveLength(1);
    const html = renderToStaticMarkup(<LeaderboardTable board={await board()} />);
    expect(html).toMatch(/the latest of 2 campaigns of this version \(checkout medians [\d,]+–[\d,]+\)/);
  });

  it("says a system changed since the previous campaign only when the two intervals do not overlap", async () => {
    const id = async (slug: string) => (await t.db.system.findUniqueOrThrow({ where: { slug } })).id;
    const gamma = (await getSystemCampaigns(t.db, await id("gamma")))!;
    expect(gamma.latest.trials).toBe(3);
    expect(gamma.previous?.trials).toBe(3);
    expect(campaignChange(gamma.latest.figures["checkout.uniform"], gamma.previous!.figures["checkout.uniform"]).kind).toBe("changed");
    const beta = (await getSystemCampaigns(t.db, await id("beta")))!;
    expect(campaignChange(beta.latest.figures["checkout.uniform"], beta.previous!.figures["checkout.uniform"]).kind).toBe("noise");
    expect((await getSystemCampaigns(t.db, await id("alpha")))!.previous).toBeNull();
    expect(await getSystemCampaigns(t.db, await id("solo"))).toBeNull();
  });
});
