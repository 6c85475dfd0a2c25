/**
 * Sessions in PostgreSQL: the cookie holds a random secret, the Session row its
 * sha256. Signing out deletes the row; an expired row signs nobody in.
 */
import type { Db } from "@sfbench/db";
import { env } from "../../env.ts";
import { hashSecret, newSecret } from "./secrets.ts";

export interface SessionUser {
  id: string;
  email: string;
  /** null until the owner followed a verification link (auth/email-verification.ts) */
  emailVerifiedAt: Date | null;
  /** set when the account was taken through an operator link (operator/setup.ts) */
  operatorSince: Date | null;
}

export async function createSession(db: Db, userId: string, now = new Date()): Promise<{ secret: string; maxAge: number }> {
  const secret = newSecret();
  const maxAge = env.SFBENCH_SESSION_DAYS * 24 * 3600;
  await db.session.create({ data: { userId, tokenHash: hashSecret(secret), expiresAt: new Date(now.getTime() + maxAge * 1000) } });
  return { secret, maxAge };
}

export async function findSessionUser(db: Db, secret: string, now = new Date()): Promise<SessionUser | null> {
  const session = await db.session.findUnique({
    where: { tokenHash: hashSecret(secret) },
    select: { expiresAt: true, user: { select: { id: true, email: true, emailVerifiedAt: true, operatorSince: true } } },
  });
  return session && session.expiresAt > now ? session.user : null;
}

export async function deleteSession(db: Db, secret: string): Promise<void> {
  await db.session.deleteMany({ where: { tokenHash: hashSecret(secret) } });
}
