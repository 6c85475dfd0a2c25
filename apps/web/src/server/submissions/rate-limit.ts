/**
 * Submissions per user per hour, counted from the Run rows the user submitted.
 * Called inside the submission's transaction after taking a per-user advisory
 * lock, so that parallel submissions cannot both slip under the limit.
 */
import type { Prisma } from "@sfbench/db";
import { fieldError, tooManyRequests } from "../trpc/errors.ts";

/** `adding`: the runs this submission queues (a campaign queues one per trial). */
export async function enforceSubmissionLimit(tx: Prisma.TransactionClient, userId: string, perHour: number, now = new Date(), adding = 1): Promise<void> {
  // waiting would never let it through: say which field to change
  if (adding > perHour)
    throw fieldError(
      "trials",
      `the campaign queues ${adding} runs (systems x trials), more than the ${perHour} an account may submit per hour: name fewer systems or trials`,
    );
  await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${`submit:${userId}`}, 0))`;
  const since = new Date(now.getTime() - 3600_000);
  const recent = await tx.run.findMany({
    where: { submittedById: userId, createdAt: { gt: since } },
    select: { createdAt: true },
    orderBy: { createdAt: "asc" },
    take: perHour,
  });
  if (recent.length + adding > perHour) {
    // the hour frees a run when the oldest counted one leaves it: enough have left once this one has
    const freeing = recent[recent.length + adding - perHour - 1]!;
    throw tooManyRequests(`at most ${perHour} submissions per hour`, new Date(freeing.createdAt.getTime() + 3600_000), now);
  }
}
