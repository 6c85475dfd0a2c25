/**
 * Where a portal campaign's populated state waits between its trials: one
 * folder per campaign, and within it one per target version and what the
 * trials measure, so trials that could not share a state never do; a build
 * that died half-way is no state.
 */
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { PopulatedState } from "@sfbench/core";
import { populatedDir, readPopulated, writePopulated, type PopulatedKey } from "../src/populated.ts";
import { tempDir } from "./helpers.ts";

const root = tempDir("sfbench-populated-");
afterAll(() => rmSync(root, { recursive: true, force: true }));

const key: PopulatedKey = {
  campaignId: "0c1d2e3f-0000-4000-8000-000000000000",
  target: "node-postgres",
  manifestDigest: `sha256:${"a".repeat(64)}`,
  profile: "standard",
  cells: [{ workload: "checkout", distribution: "uniform" }],
  seed: 1,
  nodes: 1,
};
const state: PopulatedState = {
  buildId: "1c1d2e3f-0000-4000-8000-000000000000",
  builtAt: "2026-12-03T12:00:00.000Z",
  products: 5000,
  buildS: 40,
  bytes: 1 << 26,
};

describe("a portal campaign's populated state", () => {
  it("is one folder per campaign and target, apart for anything its trials measure differently", () => {
    const dir = populatedDir(root, key);
    expect(dir.startsWith(join(root, key.campaignId, "node-postgres-"))).toBe(true);
    expect(populatedDir(root, { ...key })).toBe(dir);
    const changes: Partial<PopulatedKey>[] = [
      { manifestDigest: `sha256:${"b".repeat(64)}` },
      { profile: "quick" },
      { cells: [...key.cells, { workload: "analytics", distribution: "uniform" }] },
      { seed: 2 },
      { nodes: 2 },
    ];
    const dirs = new Set([dir, ...changes.map((c) => populatedDir(root, { ...key, ...c }))]);
    expect(dirs.size).toBe(changes.length + 1);
  });

  it("is there once its build wrote state.json, and not before (nor when the file is not a state)", () => {
    const dir = populatedDir(root, key);
    mkdirSync(join(dir, "data"), { recursive: true });
    expect(readPopulated(dir)).toBeUndefined();
    writePopulated(dir, state);
    expect(readPopulated(dir)).toEqual(state);
    writeFileSync(join(dir, "state.json"), JSON.stringify({ ...state, products: -1 }));
    expect(readPopulated(dir)).toBeUndefined();
    writeFileSync(join(dir, "state.json"), JSON.stringify(state).slice(0, 20));
    expect(readPopulated(dir)).toBeUndefined();
  });
});
