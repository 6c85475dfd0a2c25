/**
 * Which ratings count. Anyone signed in may rate, but a rating counts in a
 * system's means only once its author's account is SFBENCH_RATING_ACCOUNT_DAYS
 * days old (7) or has submitted a run that verified (completed). A batch of
 * fresh accounts therefore cannot move a mean; their ratings are kept and
 * start counting when the accounts qualify. Decided at read time, so nothing
 * needs to run when an account comes of age.
 */
import { Prisma } from "@sfbench/db";
import { env } from "../../env.ts";

const DAY_MS = 24 * 3600_000;

/** Accounts created at or before this instant qualify by age. */
export function ageCutoff(now = new Date(), days = env.SFBENCH_RATING_ACCOUNT_DAYS): Date {
  return new Date(now.getTime() - days * DAY_MS);
}

/** The users whose ratings count (Prisma filter). */
export function countedRater(now = new Date()): Prisma.UserWhereInput {
  return { OR: [{ createdAt: { lte: ageCutoff(now) } }, { runs: { some: { status: "completed" } } }] };
}

/** The same condition for SQL over "Rating": true when the row's rating counts. */
export function ratingCountsSql(now = new Date()): Prisma.Sql {
  return Prisma.sql`EXISTS (
    SELECT 1 FROM "User" rater WHERE rater.id = "Rating"."userId" AND (
      rater."createdAt" <= ${ageCutoff(now)}
      OR EXISTS (SELECT 1 FROM "Run" verified WHERE verified."submittedById" = rater.id AND verified.status = 'completed')))`;
}

export type RaterStanding = { counted: true } | { counted: false; countsFrom: Date };

/** Whether a user's ratings count now, and if not, from when they will (by age; a verified run makes it sooner). */
export function raterStanding(user: { createdAt: Date; verifiedRuns: number }, now = new Date()): RaterStanding {
  if (user.verifiedRuns > 0 || user.createdAt <= ageCutoff(now)) return { counted: true };
  return { counted: false, countsFrom: new Date(user.createdAt.getTime() + env.SFBENCH_RATING_ACCOUNT_DAYS * DAY_MS) };
}

/** How a user's ratings are counted, in words (the system page, the rating form). */
export function countingRule(): string {
  const days = env.SFBENCH_RATING_ACCOUNT_DAYS;
  return `ratings count from accounts at least ${days} day${days === 1 ? "" : "s"} old or with a submitted run that verified`;
}
