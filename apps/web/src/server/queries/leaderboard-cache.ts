/**
 * The leaderboard's data, shared by every visitor and cached for
 * SFBENCH_LEADERBOARD_CACHE_SECONDS (stale-while-revalidate): results change
 * when a run completes, not per request. Ratings made here clear it at once.
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
    cache = swrCache(env.SFBENCH_LEADERBOARD_CACHE_SECONDS * 1000, (key) => {
      const [kind, nodes] = key.split(":");
      return readLeaderboardData(db, { kind: (kind || undefined) as EnvironmentKind | undefined, nodes: nodes ? Number(nodes) : undefined });
    });
    caches.set(db, cache);
  }
  return cache;
}

export function leaderboardData(db: Db, filter: EnvironmentFilter): Promise<LeaderboardData> {
  return cacheOf(db).get(`${filter.kind ?? ""}:${filter.nodes ?? ""}`);
}

/** After a change made through the portal (a rating): the next page shows it. */
export function invalidateLeaderboard(db: Db): void {
  caches.get(db)?.clear();
}
