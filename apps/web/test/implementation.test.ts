import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getCompare } from "../src/server/queries/compare.ts";
import { getLeaderboard } from "../src/server/queries/leaderboard.ts";
import { readCompareSlugs, readShowTuned } from "../src/shared/compare-params.ts";
import { byImplementation, fmtGuarantees, implementationClass } from "../src/shared/implementation.ts";
import { LeaderboardFilter, readLeaderboardParams } from "../src/shared/leaderboard-params.ts";
import { testDatabase, type TestDatabase } from "./helpers/database.ts";
import { importFixture } from "./helpers/results.ts";

describe("implementation class (unit)", () => {
  const rows = [
    { slug: "a", implementation: "idiomatic" as const },
    { slug: "b", implementation: "tuned" as const },
    { slug: "c", implementation: "idiomatic" as const },
  ];

  it("hides tuned rows by default and counts them; shows every row when asked", () => {
    expect(byImplementation(rows, false)).toEqual({ shown: [rows[0], rows[2]], hiddenTuned: 1 });
    expect(byImplementation(rows, true)).toEqual({ shown: rows, hiddenTuned: 0 });
  });

  it("reads a stored manifest without the field, or without a manifest, as idiomatic", () => {
    const guarantees = { consistency: "serializable", messaging: "exactly-once", durability: "durable" };
    expect(implementationClass({ guarantees })).toEqual({ implementation: "idiomatic", guarantees });
    expect(implementationClass({ implementation: "tuned", guarantees })).toEqual({ implementation: "tuned", guarantees });
    expect(implementationClass(null)).toEqual({ implementation: "idiomatic", guarantees: null });
    expect(implementationClass({ implementation: null, guarantees: null })).toEqual({ implementation: "idiomatic", guarantees: null });
    expect(fmtGuarantees(implementationClass({ guarantees }).guarantees)).toBe("durable · serializable · exactly-once");
  });

  it("takes ?tuned=1 from the leaderboard's and the compare page's URL; a bad value hides tuned rows", () => {
    expect(readLeaderboardParams({}).tuned).toBe(false);
    expect(readLeaderboardParams({ tuned: "1" }).tuned).toBe(true);
    expect(readLeaderboardParams({ tuned: "perhaps" }).tuned).toBe(false);
    expect(readShowTuned({ tuned: "1" })).toBe(true);
    expect(readShowTuned({ tuned: "0" })).toBe(false);
    expect(readShowTuned({})).toBe(false);
    expect(readCompareSlugs({ systems: "a,b", tuned: "1" }).slugs).toEqual(["a", "b"]);
  });
});

describe("implementation class on the leaderboard and compare", () => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await testDatabase();
    await importFixture(t.db, "plain", { capacity: 1000, seed: 1 });
    await importFixture(t.db, "fast-path", {
      capacity: 3000,
      seed: 2,
      manifest: { implementation: "tuned", guarantees: { consistency: "eventual", messaging: "at-least-once", durability: "durable" } },
    });
  });
  afterAll(async () => {
    await t?.drop();
  });

  const board = (filter: Partial<LeaderboardFilter> = {}) => getLeaderboard(t.db, LeaderboardFilter.parse(filter));

  it("leaves tuned implementations off the leaderboard unless asked, and says how many it left off", async () => {
    const shown = await board();
    expect(shown.rows.map((r) => r.slug)).toEqual(["plain"]);
    expect(shown.hiddenTuned).toBe(1);
    const all = await board({ tuned: true });
    expect(all.rows.map((r) => [r.slug, r.implementation])).toEqual([
      ["fast-path", "tuned"],
      ["plain", "idiomatic"],
    ]);
    expect(all.hiddenTuned).toBe(0);
    expect(all.rows[0]!.guarantees).toEqual({ consistency: "eventual", messaging: "at-least-once", durability: "durable" });
  });

  it("charts a tuned implementation on compare only when asked, and lists it as hidden otherwise", async () => {
    const hidden = await getCompare(t.db, ["plain", "fast-path"]);
    expect(hidden.input.systems.map((s) => s.slug)).toEqual(["plain"]);
    expect(hidden.systems.find((s) => s.slug === "fast-path")).toMatchObject({ runId: null, tunedHidden: true });
    expect(hidden.systems.find((s) => s.slug === "plain")).toMatchObject({ tunedHidden: false, cls: { implementation: "idiomatic" } });
    const shown = await getCompare(t.db, ["plain", "fast-path"], undefined, true);
    expect(shown.input.systems.map((s) => s.slug).sort()).toEqual(["fast-path", "plain"]);
    expect(shown.systems.find((s) => s.slug === "fast-path")).toMatchObject({ tunedHidden: false, cls: { implementation: "tuned" } });
  });
});
