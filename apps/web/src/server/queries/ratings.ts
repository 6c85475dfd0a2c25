/** Rating aggregates of one system: means of both 1-5 scores and how many users rated. */
import type { Db } from "@sfbench/db";
import type { RatingSummary } from "./leaderboard-data.ts";

export async function ratingSummary(db: Db, systemId: string): Promise<RatingSummary | null> {
  const agg = await db.rating.aggregate({
    where: { systemId },
    _avg: { programmingModel: true, understandability: true },
    _count: { _all: true },
  });
  if (agg._count._all === 0) return null;
  return { programmingModel: agg._avg.programmingModel ?? 0, understandability: agg._avg.understandability ?? 0, count: agg._count._all };
}
