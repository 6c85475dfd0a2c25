/**
 * Device cookies (OWASP, "Slow Down Online Guessing Attacks with Device
 * Cookies"): a browser that signed in to an account gets a long-lived cookie
 * naming that account. A sign-in attempt that carries one of the account's
 * device cookies is limited per device; every other attempt shares the
 * account's limit. So wrong passwords sent from elsewhere lock the account
 * out for strangers, and its owner's browser still gets in; a stolen device
 * cookie gives a guesser no more than its own per-device limit.
 */
import type { Db } from "@sfbench/db";
import { readCookie } from "./cookies.ts";
import { hashSecret, newSecret } from "./secrets.ts";

export const DEVICE_COOKIE = "sfbench_device";
const DEVICE_PREFIX = "sfd_";
export const DEVICE_DAYS = 180;

/** A new device cookie for `userId`: the Set-Cookie header value (the secret is stored only as its hash). */
export async function issueDeviceCookie(db: Db, userId: string, secure: boolean, now = new Date()): Promise<string> {
  const secret = newSecret(DEVICE_PREFIX);
  const maxAge = DEVICE_DAYS * 86_400;
  await db.deviceCookie.create({ data: { userId, tokenHash: hashSecret(secret), expiresAt: new Date(now.getTime() + maxAge * 1000) } });
  // the account's expired ones go when a new one comes: a browser signs in without one only so often
  await db.deviceCookie.deleteMany({ where: { userId, expiresAt: { lte: now } } });
  const parts = [`${DEVICE_COOKIE}=${encodeURIComponent(secret)}`, "Path=/", "HttpOnly", "SameSite=Lax", `Max-Age=${maxAge}`];
  if (secure) parts.push("Secure");
  return parts.join("; ");
}

/** The id of the request's device cookie when it is one of the account of `email` and not expired; else null (a made-up, stale or other account's cookie is none). */
export async function deviceOf(db: Db, headers: Headers, email: string, now = new Date()): Promise<string | null> {
  const secret = readCookie(headers, DEVICE_COOKIE);
  if (!secret?.startsWith(DEVICE_PREFIX)) return null;
  const row = await db.deviceCookie.findUnique({
    where: { tokenHash: hashSecret(secret) },
    select: { id: true, expiresAt: true, user: { select: { email: true } } },
  });
  return row && row.expiresAt > now && row.user.email === email ? row.id : null;
}
