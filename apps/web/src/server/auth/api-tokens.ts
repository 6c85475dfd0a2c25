/**
 * API tokens for the CLI (`Authorization: Bearer sfb_...`): shown once when
 * created, stored as sha256, revocable. The first characters are kept to tell
 * tokens apart in the list.
 */
import type { Db } from "@sfbench/db";
import { hashSecret, newSecret } from "./secrets.ts";
import type { SessionUser } from "./sessions.ts";

export const TOKEN_PREFIX = "sfb_";
const SHOWN_PREFIX_LENGTH = TOKEN_PREFIX.length + 6;
/** lastUsedAt is written at most this often per token */
const TOUCH_EVERY_MS = 60_000;

export async function createApiToken(db: Db, userId: string, name: string) {
  const token = newSecret(TOKEN_PREFIX);
  const row = await db.apiToken.create({
    data: { userId, name, tokenHash: hashSecret(token), prefix: token.slice(0, SHOWN_PREFIX_LENGTH) },
    select: { id: true, name: true, prefix: true, createdAt: true },
  });
  return { ...row, token };
}

export async function findTokenUser(db: Db, token: string, now = new Date()): Promise<SessionUser | null> {
  if (!token.startsWith(TOKEN_PREFIX)) return null;
  const row = await db.apiToken.findUnique({
    where: { tokenHash: hashSecret(token) },
    select: { id: true, revokedAt: true, lastUsedAt: true, user: { select: { id: true, email: true, emailVerifiedAt: true } } },
  });
  if (!row || row.revokedAt) return null;
  if (!row.lastUsedAt || now.getTime() - row.lastUsedAt.getTime() > TOUCH_EVERY_MS) {
    await db.apiToken.update({ where: { id: row.id }, data: { lastUsedAt: now } });
  }
  return row.user;
}
