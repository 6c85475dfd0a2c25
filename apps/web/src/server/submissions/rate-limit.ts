/**
 * Submissions per user per hour, counted from the Run rows the user submitted.
 * Called inside the submission's transaction after taking a per-user advisory
 * lock, so that parallel submissions cannot both slip under the limit.
 */
import type { Prisma } from "@sfbench/db";
import { tooManyRequests } from "../trpc/errors.ts";

export async function enforceSubmissionLimit(tx: Prisma.TransactionClient, userId: string, perHour: number, now = new Date()): Promise<void> {
  await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${`submit:${userId}`}, 0))`;
  const since = new Date(now.getTime() - 3600_000);
  const recent = await tx.run.findMany({
    where: { submittedById: userId, createdAt: { gt: since } },
    select: { createdAt: true },
    orderBy: { createdAt: "asc" },
    take: perHour,
  });
  if (recent.length >= perHour) {
    throw tooManyRequests(`at most ${perHour} submissions per hour`, new Date(recent[0]!.createdAt.getTime() + 3600_000), now);
  }
}
