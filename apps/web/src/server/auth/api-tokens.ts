/**
 * API tokens for the CLI (`Authorization: Bearer sfb_...`): shown once when
 * created, stored as sha256, revocable, expiring after the days chosen
 * (DEFAULT_TOKEN_DAYS unless the owner says otherwise). The first characters are kept to tell
 * tokens apart in the list.
 */
import type { Db } from "@sfbench/db";
import { DEFAULT_TOKEN_DAYS } from "../../shared/token-days.ts";
import { hashSecret, newSecret } from "./secrets.ts";
import type { SessionUser } from "./sessions.ts";

export const TOKEN_PREFIX = "sfb_";
const SHOWN_PREFIX_LENGTH = TOKEN_PREFIX.length + 6;
/** lastUsedAt is written at most this often per token */
const TOUCH_EVERY_MS = 60_000;

export async function createApiToken(db: Db, userId: string, name: string, days: number | null = DEFAULT_TOKEN_DAYS, now = new Date()) {
  const token = newSecret(TOKEN_PREFIX);
  const row = await db.apiToken.create({
    data: {
      userId,
      name,
      tokenHash: hashSecret(token),
      prefix: token.slice(0, SHOWN_PREFIX_LENGTH),
      expiresAt: days === null ? null : new Date(now.getTime() + days * 86_400_000),
    },
    select: { id: true, name: true, prefix: true, createdAt: true, expiresAt: true },
  });
  return { ...row, token };
}

export async function findTokenUser(db: Db, token: string, now = new Date()): Promise<SessionUser | null> {
  if (!token.startsWith(TOKEN_PREFIX)) return null;
  const row = await db.apiToken.findUnique({
    where: { tokenHash: hashSecret(token) },
    select: {
      id: true,
      revokedAt: true,
      expiresAt: true,
      lastUsedAt: true,
      user: { select: { id: true, email: true, emailVerifiedAt: true, operatorSince: true } },
    },
  });
  if (!row || row.revokedAt || (row.expiresAt && row.expiresAt <= now)) return null;
  if (!row.lastUsedAt || now.getTime() - row.lastUsedAt.getTime() > TOUCH_EVERY_MS) {
    await db.apiToken.update({ where: { id: row.id }, data: { lastUsedAt: now } });
  }
  return row.user;
}
