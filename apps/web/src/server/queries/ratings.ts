/**
 * Rating aggregates of one system: means of both 1-5 scores over the ratings
 * that count (ratings/counted.ts), how many those are, and how many more wait
 * for their authors to verify their email addresses.
 */
import type { Db } from "@sfbench/db";
import { countedRater } from "../ratings/counted.ts";
import type { RatingSummary } from "./leaderboard-data.ts";

export async function ratingSummary(db: Db, systemId: string): Promise<RatingSummary | null> {
  const agg = await db.rating.aggregate({
    where: { systemId, user: countedRater() },
    _avg: { programmingModel: true, understandability: true },
    _count: { _all: true },
  });
  if (agg._count._all === 0) return null;
  return { programmingModel: agg._avg.programmingModel ?? 0, understandability: agg._avg.understandability ?? 0, count: agg._count._all };
}

/** Ratings of the system that do not count (their authors' addresses are not verified). */
export function pendingRatings(db: Db, systemId: string): Promise<number> {
  return db.rating.count({ where: { systemId, user: { NOT: countedRater() } } });
}
