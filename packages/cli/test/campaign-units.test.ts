import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { repeatBusy, type Cell, type Noise } from "@sfbench/core";
import { campaignDir, trialNotes } from "../src/campaign-run.ts";

const noise = (busy: boolean) => ({ busy, busyBecause: busy ? ["processes outside the run used 1.00 cores on average (more than 0.25)"] : [] }) as Noise;

describe("a campaign's trials", () => {
  it("repeats a completed busy trial while repeats are left, and nothing else", () => {
    expect(repeatBusy({ status: "completed", noise: noise(true) }, 1, 1)).toBe(true);
    expect(repeatBusy({ status: "completed", noise: noise(true) }, 2, 1)).toBe(false);
    expect(repeatBusy({ status: "completed", noise: noise(true) }, 1, 0)).toBe(false);
    expect(repeatBusy({ status: "completed", noise: noise(false) }, 1, 1)).toBe(false);
    expect(repeatBusy({ status: "failed", noise: noise(true) }, 1, 1)).toBe(false);
    expect(repeatBusy({ status: "completed" }, 1, 1)).toBe(false);
  });

  it("keeps each campaign in a folder of its own, named by its start and id", () => {
    expect(campaignDir("/r", new Date("2026-11-25T01:02:03.456Z"), "7c235b82-0dac-4fbc-96f9-0478bec81804")).toBe("/r/campaigns/20261125-010203-7c235b82");
  });

  it("says why a trial gives no figure: the run's error, or each invalid cell's reason", () => {
    expect(trialNotes({ error: { stage: "verify", message: "1 of 176 conformance checks failed" }, cells: [] })).toEqual([
      "verify: 1 of 176 conformance checks failed",
    ]);
    const cell = (valid: boolean, invalidReason?: string) =>
      ({ workload: "checkout", distribution: "uniform", valid, ...(invalidReason ? { invalidReason } : {}) }) as Cell;
    expect(trialNotes({ cells: [cell(false, "the generator saturated")] })).toEqual(["checkout/uniform: the generator saturated"]);
    expect(trialNotes({ cells: [cell(true)] })).toEqual([]);
  });

  it("docs/measurements.md has the table results:table makes from the kept campaigns", () => {
    const repo = fileURLToPath(new URL("../../../", import.meta.url));
    const r = spawnSync(process.execPath, ["--import", "tsx", "scripts/results-table.ts", "--check"], { cwd: repo, encoding: "utf8" });
    expect(r.status, r.stdout + r.stderr).toBe(0);
  });
});
