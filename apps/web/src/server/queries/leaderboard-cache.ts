/**
 * The leaderboard's data, shared by every visitor and cached for
 * SFBENCH_LEADERBOARD_CACHE_SECONDS (stale-while-revalidate): results change
 * when a run completes, not per request. Each page load first asks the
 * database for the completed runs' count and latest finish (an index-only
 * scan): a run the worker completed (another process) shows on the next page
 * load. Ratings made here clear it at once.
 */
import type { Db, EnvironmentKind } from "@sfbench/db";
import { env } from "../../env.ts";
import { swrCache, type Cache } from "../cache.ts";
import { readLeaderboardData, type LeaderboardData } from "./leaderboard-data.ts";

export interface EnvironmentFilter {
  kind?: EnvironmentKind;
  nodes?: number;
}

const caches = new WeakMap<Db, Cache<LeaderboardData>>();

function cacheOf(db: Db): Cache<LeaderboardData> {
  let cache = caches.get(db);
  if (!cache) {
    cache = swrCache(
      env.SFBENCH_LEADERBOARD_CACHE_SECONDS * 1000,
      (key) => {
        const [kind, nodes] = key.split(":");
        return readLeaderboardData(db, { kind: (kind || undefined) as EnvironmentKind | undefined, nodes: nodes ? Number(nodes) : undefined });
      },
      { version: () => completedRunsVersion(db) },
    );
    caches.set(db, cache);
  }
  return cache;
}

/** Changes whenever a run completes (or a completed run is deleted with its system). */
export async function completedRunsVersion(db: Db): Promise<string> {
  const [row] = await db.$queryRaw<{ n: number; last: Date | null }[]>`
    SELECT count(*)::int AS n, max("finishedAt") AS last FROM "Run" WHERE status = 'completed'`;
  return `${row?.n ?? 0}@${row?.last?.getTime() ?? 0}`;
}

export function leaderboardData(db: Db, filter: EnvironmentFilter): Promise<LeaderboardData> {
  return cacheOf(db).get(`${filter.kind ?? ""}:${filter.nodes ?? ""}`);
}

/** After a change made through the portal (a rating): the next page shows it. */
export function invalidateLeaderboard(db: Db): void {
  caches.get(db)?.clear();
}
