import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { renderToStaticMarkup } from "react-dom/server";
import { PopulationHeader } from "../src/components/leaderboard-filters.tsx";
import { LeaderboardTable } from "../src/components/leaderboard-table.tsx";
import { getLeaderboard } from "../src/server/queries/leaderboard.ts";
import { LeaderboardFilter } from "../src/shared/leaderboard-params.ts";
import { caller } from "./helpers/callers.ts";
import { testDatabase, type TestDatabase } from "./helpers/database.ts";
import { importCampaignFixture, importFixture } from "./helpers/results.ts";

let t: TestDatabase;
const day = (d: number) => new Date(Date.UTC(2026, 10, d, 12));
beforeAll(async () => {
  t = await testDatabase();
  await importFixture(t.db, "fast", { capacity: 2000, seed: 1, finishedAt: day(1) });
  await importFixture(t.db, "fast", { capacity: 2400, seed: 2, finishedAt: day(2) }); // newer: this one counts
  await importFixture(t.db, "fast", { failed: true, seed: 3, finishedAt: day(3) }); // newest, failed: never shown
  await importFixture(t.db, "slow", { capacity: 500, seed: 4, finishedAt: day(2), invalidCell: "analytics/zipf" });
  await importFixture(t.db, "slow", { capacity: 900, seed: 5, finishedAt: day(2), environment: { kind: "local", nodes: 3 } });
  await importFixture(t.db, "broken", { failed: true, seed: 6, finishedAt: day(2) });
});
afterAll(async () => {
  await t?.drop();
});

const board = (filter: Partial<LeaderboardFilter> = {}) => getLeaderboard(t.db, LeaderboardFilter.parse(filter));

describe("leaderboard", () => {
  it("has one row per system and environment, from the latest completed run; a failed run is never a row of numbers", async () => {
    const { rows } = await board();
    expect(rows.map((r) => `${r.slug}@${r.nodes}`).sort()).toEqual(["fast@1", "slow@1", "slow@3"]);
    const fast = rows.find((r) => r.slug === "fast")!;
    const latest = await t.db.run.findFirstOrThrow({ where: { system: { slug: "fast" }, status: "completed" }, orderBy: { finishedAt: "desc" } });
    expect(fast.runId).toBe(latest.id);
    expect(fast.rates["checkout.uniform"]).toBeGreaterThan(1000);
  });

  it("shows an invalid cell as invalid, never as a number, and such a row is not verified", async () => {
    const slow = (await board()).rows.find((r) => r.slug === "slow" && r.nodes === 1)!;
    expect(slow.rates).not.toHaveProperty("analytics.zipf");
    expect(slow.invalid["analytics.zipf"]).toContain("bottleneck");
    expect(slow.verified).toBe(false);
    expect((await board()).rows.find((r) => r.slug === "fast")!.verified).toBe(true);
  });

  it("sorts best first by default, either way on request, with missing values last", async () => {
    expect((await board()).rows.map((r) => r.slug)[0]).toBe("fast");
    const asc = await board({ sort: "checkout.uniform", dir: "asc" });
    expect(asc.rows[0]!.slug).toBe("slow");
    const byP99 = await board({ sort: "p99" });
    const p99s = byP99.rows.map((r) => r.focus?.p99 ?? Infinity);
    expect(p99s).toEqual([...p99s].sort((a, b) => a - b));
    const byRating = await board({ sort: "rating", dir: "asc" });
    expect(byRating.rows.every((r) => r.ratings === null)).toBe(true);
  });

  it("filters by environment kind and node count", async () => {
    expect((await board({ nodes: 3 })).rows.map((r) => r.slug)).toEqual(["slow"]);
    expect((await board({ kind: "kubernetes" })).rows).toEqual([]);
    expect((await board()).environments).toEqual([
      { kind: "local", nodes: 1 },
      { kind: "local", nodes: 3 },
    ]);
  });

  it("filters by workload and distribution: the columns shown and the cell the latency comes from", async () => {
    const zipf = await board({ workload: "analytics", distribution: "zipf" });
    expect(zipf.rateKeys).toEqual(["analytics.zipf"]);
    expect(zipf.focus).toEqual({ workload: "analytics", distribution: "zipf" });
    expect(zipf.rows.map((r) => `${r.slug}@${r.nodes}`).sort()).toEqual(["fast@1", "slow@3"]);
    expect((await board({ workload: "contention" })).rows).toEqual([]);
  });

  it("keeps what is not ranked visible: a system without a ranked run below the ranked rows with why, a later failed run on the row it follows", async () => {
    const b = await board();
    expect(b.unranked.map((u) => [u.slug, u.status, u.reasons])).toEqual([["broken", "failed", ["failed at verify: 12 of 116 conformance checks failed"]]]);
    const fast = b.rows.find((r) => r.slug === "fast")!;
    expect(fast.laterUnranked).toMatchObject({ status: "failed", reasons: ["failed at verify: 12 of 116 conformance checks failed"] });
    expect(fast.laterUnranked!.finishedAt.getTime()).toBeGreaterThan(fast.finishedAt.getTime());
    expect(b.rows.find((r) => r.slug === "slow" && r.nodes === 1)!.laterUnranked).toBeNull();
    const html = renderToStaticMarkup(<LeaderboardTable board={b} />);
    expect(html).toContain('data-unranked="failed"');
    expect(html).toContain("failed: failed at verify: 12 of 116 conformance checks failed");
    expect(html).toContain('data-later-unranked="failed"');
  });

  it("ranks one durability level at a time: a system that answers before an fsync is a click away, never ranked with durable ones", async () => {
    await importFixture(t.db, "early", {
      capacity: 5000,
      seed: 7,
      finishedAt: day(2),
      manifest: { guarantees: { consistency: "per-entity-linearizable", messaging: "exactly-once", durability: "unsynced" } },
    });
    const durable = await board();
    expect(durable.durability).toBe("durable");
    expect(durable.rows.map((r) => r.slug)).not.toContain("early");
    expect(durable.otherLevels).toEqual([{ level: "unsynced", rows: 1 }]);
    const unsynced = await board({ durability: "unsynced" });
    expect(unsynced.rows.map((r) => r.slug)).toEqual(["early"]);
    const html = renderToStaticMarkup(<PopulationHeader board={durable} />);
    expect(html).toContain("Durability <strong>durable</strong>");
    expect(html).toMatch(/href="\/\?kind=local&amp;profile=standard&amp;machine=[^"]*&amp;durability=unsynced">unsynced<\/a> \(1 row\)/);
  });

  it("is served by leaderboard.rows, with bad filters refused by name", async () => {
    const { api } = await caller(t.db);
    expect((await api.leaderboard.rows({})).rows).toHaveLength(3);
    await expect(api.leaderboard.rows({ sort: "nonsense" as never })).rejects.toThrow(/sort/);
  });
});

describe("a board of several campaigns", () => {
  const DRIFTING = { cpuModel: "AMD EPYC 9B14", cores: 2, memoryBytes: 24 * 2 ** 30 };
  beforeAll(async () => {
    // one afternoon: the machine fast; delta twice the reference
    await importCampaignFixture(
      t.db,
      [
        { name: "node-postgres", capacities: [1000, 1040, 980] },
        { name: "delta", capacities: [2000, 2100, 1950] },
      ],
      { machine: DRIFTING, start: new Date(Date.UTC(2026, 10, 26, 14)), seed: 11 },
    );
    // that night the same machine is half as fast; epsilon 2.4 times the reference, but below delta's afternoon rate
    await importCampaignFixture(
      t.db,
      [
        { name: "node-postgres", capacities: [500, 520, 490] },
        { name: "epsilon", capacities: [1200, 1250, 1180] },
      ],
      { machine: DRIFTING, start: new Date(Date.UTC(2026, 10, 27, 2)), seed: 12 },
    );
  });

  it("ranks by each system's ratio to the reference in its own campaign's rounds, not by rates of different days", async () => {
    const b = await board({ machine: "2 cores, AMD EPYC 9B14, 24 GiB" });
    expect(b.rankedBy).toBe("ratio");
    expect(b.rows.map((r) => r.slug)).toEqual(["epsilon", "delta", "node-postgres"]);
    // the absolute medians say the opposite of the ratios
    const rate = (slug: string) => b.rows.find((r) => r.slug === slug)!.rates["checkout.uniform"]!;
    expect(rate("delta")).toBeGreaterThan(rate("epsilon"));
    expect(b.rows.map((r) => r.standing?.rank)).toEqual([1, 2, 3]);
    const html = renderToStaticMarkup(<LeaderboardTable board={b} />);
    expect(html).toContain('data-testid="ranked-by-ratio"');
    // single runs only (the other machine): nothing to rank by ratio, the medians order
    expect((await board({ machine: "8 cores, AMD EPYC 7B13, 16 GiB" })).rankedBy).toBe("median");
  });
});
