/**
 * A portal campaign's populated state (docs/running.md, "The populated
 * state"). The worker runs a campaign's trials as separate queued runs, so the
 * state waits on disk between them: the first trial of a target in a campaign
 * builds it (for that version, profile, cells, seed and node count), writes
 * state.json beside the copy, and every trial, that first one included, starts
 * on a copy of it. Once the campaign has no run left queued or running, its
 * states are deleted; the build's records stay with the raw data.
 */
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { PopulatedState, type CellChoice } from "@sfbench/core";
import type { Db } from "@sfbench/db";

/** What a populated state was built for: trials that differ in any of it cannot share one. */
export interface PopulatedKey {
  campaignId: string;
  target: string;
  manifestDigest: string;
  profile: string;
  cells: readonly CellChoice[];
  seed: number;
  nodes: number;
}

/** The folder of one campaign's state of one target (under the worker's own root, never a CLI campaign's). */
export function populatedDir(root: string, k: PopulatedKey): string {
  const what = JSON.stringify([k.manifestDigest, k.profile, k.cells.map((c) => `${c.workload}/${c.distribution}`), k.seed, k.nodes]);
  return join(root, k.campaignId, `${k.target}-${createHash("sha256").update(what).digest("hex").slice(0, 16)}`);
}

/** The state built in `dir`, if its build finished (a build that died half-way left no state.json, and is built again). */
export function readPopulated(dir: string): PopulatedState | undefined {
  const file = join(dir, "state.json");
  if (!existsSync(file)) return undefined;
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(file, "utf8"));
  } catch {
    return undefined; // cut short by a crash while it was written
  }
  const parsed = PopulatedState.safeParse(json);
  return parsed.success ? parsed.data : undefined;
}

export function writePopulated(dir: string, state: PopulatedState): void {
  writeFileSync(join(dir, "state.json"), JSON.stringify(state, null, 2) + "\n");
}

/** Removes what is left of `dir` (a build that failed half-way). */
export const dropPopulated = (dir: string) => rmSync(dir, { recursive: true, force: true });

/** Deletes the states of every campaign under `root` with no run left queued or running but `current` (the run ending now); returns the campaigns deleted. */
export async function sweepPopulated(db: Db, root: string, current: string): Promise<string[]> {
  if (!existsSync(root)) return [];
  const gone: string[] = [];
  for (const campaignId of readdirSync(root)) {
    const open = /^[0-9a-f-]{36}$/.test(campaignId)
      ? await db.run.count({ where: { campaignId, id: { not: current }, status: { in: ["queued", "running"] } } })
      : 0;
    if (open > 0) continue;
    rmSync(join(root, campaignId), { recursive: true, force: true });
    gone.push(campaignId);
  }
  return gone;
}
