/**
 * Email verification: a link with a random token is mailed at sign-up (and on
 * request); following it marks the address verified, which is what makes the
 * account's ratings count (ratings/counted.ts) and the operator's account the
 * operator (operator.ts). Tokens are stored as sha256, work once, and expire
 * after SFBENCH_VERIFICATION_HOURS. An account may ask for at most
 * SFBENCH_VERIFICATION_EMAILS_PER_HOUR mails an hour, so the portal cannot be
 * used to flood an address.
 */
import type { Db } from "@sfbench/db";
import { TRPCError } from "@trpc/server";
import { tooManyRequests } from "../trpc/errors.ts";
import type { Mailer } from "../mail/mailer.ts";
import { hashSecret, newSecret } from "./secrets.ts";

const HOUR_MS = 3600_000;

export interface VerificationSettings {
  mailer: Mailer;
  /** how long a link works */
  hours: number;
  /** mails per account per hour */
  perHour: number;
}

/** The page a link opens; the token is in the query. */
export const VERIFY_PATH = "/verify-email";

export function verificationLink(origin: string, token: string): string {
  return `${origin}${VERIFY_PATH}?token=${encodeURIComponent(token)}`;
}

/** Mails a new link to the user's address (throws 429 past the hourly limit); returns where it went. */
export async function sendVerification(
  db: Db,
  user: { id: string; email: string },
  origin: string,
  settings: VerificationSettings,
): Promise<{ sentTo: string; expiresAt: Date }> {
  const token = newSecret();
  const now = new Date();
  const expiresAt = new Date(now.getTime() + settings.hours * HOUR_MS);
  await db.$transaction(async (tx) => {
    // one account's requests are counted one at a time: parallel resends cannot pass the limit together
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${`verify:${user.id}`}, 0))`;
    const nth = await tx.emailVerification.findFirst({
      where: { userId: user.id, createdAt: { gt: new Date(now.getTime() - HOUR_MS) } },
      orderBy: { createdAt: "desc" },
      skip: settings.perHour - 1,
      select: { createdAt: true },
    });
    if (nth)
      throw tooManyRequests(
        `too many verification mails for this account (at most ${settings.perHour} an hour)`,
        new Date(nth.createdAt.getTime() + HOUR_MS),
        now,
      );
    await tx.emailVerification.create({ data: { userId: user.id, tokenHash: hashSecret(token), createdAt: now, expiresAt } });
  });
  const link = verificationLink(origin, token);
  await settings.mailer.send({
    to: user.email,
    subject: "Verify your email address for sfbench",
    text:
      `Follow this link to verify ${user.email} on sfbench (until ${expiresAt.toISOString().slice(0, 16).replace("T", " ")} UTC; it works once):\n\n` +
      `${link}\n\n` +
      "Once your address is verified, your ratings count in the systems' means. If you did not sign up, ignore this mail.\n",
  });
  return { sentTo: user.email, expiresAt };
}

/**
 * Follows a link: marks the address verified and uses the token up, for the
 * account that asked for it and only when its owner is the one signed in. The
 * mail proves the address; the session proves whose account it is: without
 * it, whoever signed up first with someone else's address (the operator's,
 * say) would have that account verified by the address's owner's click. A
 * token that is unknown, used or expired is refused with what to do instead.
 */
export async function verifyEmail(db: Db, token: string, viewerId: string | undefined, now = new Date()): Promise<{ email: string }> {
  const found = await db.emailVerification.findUnique({
    where: { tokenHash: hashSecret(token) },
    select: { id: true, expiresAt: true, usedAt: true, user: { select: { id: true, email: true } } },
  });
  if (!found)
    throw new TRPCError({ code: "NOT_FOUND", message: "this verification link is not valid (check that it was copied whole); sign in to send a new one" });
  if (!viewerId) throw new TRPCError({ code: "UNAUTHORIZED", message: "sign in as the account that asked for this link, then follow the link again" });
  if (viewerId !== found.user.id) {
    throw new TRPCError({
      code: "FORBIDDEN",
      message: "this link verifies another account than the one signed in: sign in as the account that asked for it, then follow the link again",
    });
  }
  if (found.usedAt) {
    throw new TRPCError({
      code: "CONFLICT",
      message: `this verification link was already used (${fmtUtc(found.usedAt)}); a link works once: sign in to send a new one if your address is not verified`,
    });
  }
  if (found.expiresAt <= now)
    throw new TRPCError({ code: "BAD_REQUEST", message: `this verification link expired at ${fmtUtc(found.expiresAt)}; sign in to send a new one` });
  const used = await db.$transaction(async (tx) => {
    // only the first of two clicks at once uses the token
    const claimed = await tx.emailVerification.updateMany({ where: { id: found.id, usedAt: null }, data: { usedAt: now } });
    if (claimed.count === 0) return false;
    await tx.user.update({ where: { id: found.user.id }, data: { emailVerifiedAt: now } });
    return true;
  });
  if (!used) throw new TRPCError({ code: "CONFLICT", message: "this verification link was already used; a link works once" });
  return { email: found.user.email };
}

function fmtUtc(at: Date): string {
  return `${at.toISOString().slice(0, 16).replace("T", " ")} UTC`;
}
