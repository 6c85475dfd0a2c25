/**
 * The operator's account is made by the operator, on the portal's machine:
 * `npm run operator -w @sfbench/web -- --email <address>` stores a one-time
 * link (its token as sha256, expiring) and prints it; whoever follows it sets
 * the password of the account of that address and becomes the operator. An
 * account someone signed up with the address before (a sign-up race) is taken
 * over: its password replaced, its sessions, device cookies and API tokens
 * deleted. A link that is unknown, used or expired is refused with what to do
 * instead.
 */
import type { Db } from "@sfbench/db";
import { TRPCError } from "@trpc/server";
import { hashPassword } from "../auth/password.ts";
import { hashSecret, newSecret } from "../auth/secrets.ts";

const HOUR_MS = 3600_000;

/** The page a link opens; the token is in the query. */
export const OPERATOR_SETUP_PATH = "/operator-setup";

const AGAIN = "run `npm run operator -w @sfbench/web -- --email <address>` on the portal's machine for a new one";

export async function createOperatorSetup(
  db: Db,
  email: string,
  { origin, hours = 24, now = new Date() }: { origin: string; hours?: number; now?: Date },
): Promise<{ link: string; expiresAt: Date }> {
  const token = newSecret();
  const expiresAt = new Date(now.getTime() + hours * HOUR_MS);
  await db.operatorSetup.create({ data: { email: email.toLowerCase(), tokenHash: hashSecret(token), createdAt: now, expiresAt } });
  return { link: `${origin}${OPERATOR_SETUP_PATH}?token=${encodeURIComponent(token)}`, expiresAt };
}

/** Follows a link: the account of its address gets `password` and becomes the operator's; the token is used up. */
export async function claimOperator(db: Db, token: string, password: string, now = new Date()): Promise<{ userId: string; email: string }> {
  const found = await db.operatorSetup.findUnique({ where: { tokenHash: hashSecret(token) } });
  if (!found) throw new TRPCError({ code: "NOT_FOUND", message: `this operator link is not valid (check that it was copied whole); ${AGAIN}` });
  if (found.usedAt)
    throw new TRPCError({ code: "CONFLICT", message: `this operator link was already used (${fmtUtc(found.usedAt)}); a link works once: ${AGAIN}` });
  if (found.expiresAt <= now) throw new TRPCError({ code: "BAD_REQUEST", message: `this operator link expired at ${fmtUtc(found.expiresAt)}; ${AGAIN}` });
  const passwordHash = await hashPassword(password);
  const userId = await db.$transaction(async (tx) => {
    // only the first of two submissions at once uses the token
    const claimed = await tx.operatorSetup.updateMany({ where: { id: found.id, usedAt: null }, data: { usedAt: now } });
    if (claimed.count === 0) return undefined;
    const user = await tx.user.upsert({
      where: { email: found.email },
      create: { email: found.email, passwordHash, emailVerifiedAt: now, operatorSince: now },
      update: { passwordHash, emailVerifiedAt: now, operatorSince: now },
      select: { id: true },
    });
    // whoever held the account before (signed up first with the address) keeps no way in
    await tx.session.deleteMany({ where: { userId: user.id } });
    await tx.deviceCookie.deleteMany({ where: { userId: user.id } });
    await tx.apiToken.deleteMany({ where: { userId: user.id } });
    await tx.emailVerification.deleteMany({ where: { userId: user.id } });
    return user.id;
  });
  if (!userId) throw new TRPCError({ code: "CONFLICT", message: `this operator link was already used; a link works once: ${AGAIN}` });
  return { userId, email: found.email };
}

function fmtUtc(at: Date): string {
  return `${at.toISOString().slice(0, 16).replace("T", " ")} UTC`;
}
