/**
 * The evidence per system at the head of docs/measurements.md's generated
 * tables: per bundled system and cell, the kept campaign with the most trials
 * beside the reference, newest of equals; fewer than five trials said, a
 * system no campaign measured named "none", campaigns without a reference or
 * of another profile or unfinished left out.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { parseCampaign, type CampaignDocument } from "@sfbench/core";
import { evidenceMarkdown, evidenceRows } from "../src/campaign-table.ts";

const REPO = fileURLToPath(new URL("../../../", import.meta.url));
/** a kept quiet-machine campaign: node-postgres and statefun, ten rounds */
const kept = (() => {
  const parsed = parseCampaign(JSON.parse(readFileSync(join(REPO, "results/campaigns/20261129-105448-a4a20181/campaign.json"), "utf8")));
  if (!parsed.ok) throw new Error(parsed.errors.join("; "));
  return parsed.campaign;
})();

const statefunVersion = kept.targets.find((t) => t.name === "statefun")!.version;
const systems = (...names: string[]) => names.map((name) => ({ name, version: name === "statefun" ? statefunVersion : "0.2.0" }));

/** the kept campaign as if it had kept only its first `n` statefun figures, started at `startedAt` */
function fewer(n: number, startedAt: string, changes: Partial<CampaignDocument> = {}): CampaignDocument {
  return {
    ...kept,
    campaignId: `${startedAt.slice(0, 4)}abcd-0000-4000-8000-000000000000`,
    startedAt,
    statistics: kept.statistics.map((s) =>
      s.target === "statefun" ? { ...s, n, busy: 1, ratioToReference: { ...s.ratioToReference!, ratio: 1.5, interval: null } } : s,
    ),
    ...changes,
  };
}

describe("the evidence per system", () => {
  it("takes the campaign with the most trials, names its ratio, version, date and machine, and says none where nothing was measured", () => {
    const rows = evidenceRows([fewer(3, "2026-12-07T00:00:00.000Z"), kept], systems("node-postgres", "restate", "statefun"));
    expect(rows).toEqual([
      // as many reference trials in both: the newer campaign
      ["node-postgres", "n = 10: 157 checkouts/s, the reference; 0.2.0, 2026-12-07 2026abcd, AMD EPYC", "none"],
      ["restate", "none", "none"],
      ["statefun", `n = 10: 2.22x (1.99 .. 2.48) of node-postgres; ${statefunVersion}, 2026-11-29 a4a20181, AMD EPYC`, "none"],
    ]);
  });

  it("prefers the newest of campaigns with as many trials, and says fewer than five and busy trials", () => {
    const rows = evidenceRows([fewer(3, "2026-11-01T00:00:00.000Z"), fewer(3, "2026-12-07T00:00:00.000Z")], systems("statefun"));
    expect(rows[0]![1]).toMatch(/^n = 3, fewer than 5, 1 busy: 1\.50x of node-postgres; .*, 2026-12-07 2026abcd, AMD EPYC$/);
  });

  it("takes the current version's campaign over an earlier version's with more trials, and says when only an earlier one exists", () => {
    const current = fewer(3, "2026-12-07T00:00:00.000Z", { targets: kept.targets.map((t) => (t.name === "statefun" ? { ...t, version: "9.0.0" } : t)) });
    const next = [{ name: "statefun", version: "9.0.0" }];
    expect(evidenceRows([kept, current], next)[0]![1]).toMatch(/^n = 3, fewer than 5, 1 busy: 1\.50x of node-postgres; 9\.0\.0, 2026-12-07/);
    expect(evidenceRows([kept], next)[0]![1]).toMatch(
      new RegExp(`^n = 10: 2\\.22x .*; ${statefunVersion.replace(/\./g, "\\.")}, none yet of 9\\.0\\.0, 2026-11-29 a4a20181`),
    );
  });

  it("leaves out campaigns without a reference, of another profile, or not completed", () => {
    const others = [
      fewer(10, "2026-12-07T00:00:00.000Z", { reference: undefined }),
      fewer(10, "2026-12-07T00:00:00.000Z", { profile: "thesis" }),
      fewer(10, "2026-12-07T00:00:00.000Z", { status: "failed" }),
    ];
    expect(evidenceRows(others, systems("statefun"))).toEqual([["statefun", "none", "none"]]);
  });

  it("is a markdown table with a header row per cell", () => {
    const md = evidenceMarkdown([kept], systems("statefun"));
    expect(md.split("\n").slice(0, 2)).toEqual(["| system | checkout/uniform | analytics/uniform |", "|---|---|---|"]);
    expect(md).toContain("| statefun | n = 10: 2.22x");
  });
});
