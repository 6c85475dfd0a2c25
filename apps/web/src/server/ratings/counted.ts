/**
 * Which ratings count. Anyone signed in may rate, but a rating counts in a
 * system's means only while its author's email address is verified (a link
 * mailed at sign-up, auth/email-verification.ts): making many accounts then
 * takes as many mailboxes, so a batch of throwaway accounts cannot move a
 * mean. Unverified accounts' ratings are kept and start counting once the
 * address is verified. Decided at read time, so nothing needs to run then.
 */
import { Prisma } from "@sfbench/db";

/** The users whose ratings count (Prisma filter). */
export function countedRater(): Prisma.UserWhereInput {
  return { emailVerifiedAt: { not: null } };
}

/** The same condition for SQL over "Rating": true when the row's rating counts. */
export function ratingCountsSql(): Prisma.Sql {
  return Prisma.sql`EXISTS (SELECT 1 FROM "User" rater WHERE rater.id = "Rating"."userId" AND rater."emailVerifiedAt" IS NOT NULL)`;
}

export type RaterStanding = { counted: true } | { counted: false; why: string };

/** Whether a user's ratings count now, and if not, what makes them count. */
export function raterStanding(user: { email: string; emailVerifiedAt: Date | null }): RaterStanding {
  if (user.emailVerifiedAt) return { counted: true };
  return { counted: false, why: `it counts once you verify ${user.email} with the link mailed to it (you can send a new one)` };
}

/** How ratings are counted, in words (the system page, the rating form). */
export function countingRule(): string {
  return "ratings count from accounts whose email address is verified (the link mailed at sign-up)";
}
