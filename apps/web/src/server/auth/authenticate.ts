/**
 * Who is asking: an API token (Authorization: Bearer) wins over the session
 * cookie; a request with neither is anonymous (reading is public).
 */
import type { Db } from "@sfbench/db";
import { findTokenUser } from "./api-tokens.ts";
import { readCookie, SESSION_COOKIE } from "./cookies.ts";
import { findSessionUser, type SessionUser } from "./sessions.ts";

export type AuthKind = "token" | "session";

export interface Authentication {
  user: SessionUser | null;
  /** how the user was recognised; null when anonymous */
  auth: AuthKind | null;
  /** the session cookie's value, when one was sent (sign-out deletes it) */
  sessionSecret?: string;
}

export function bearerToken(headers: Headers): string | undefined {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(headers.get("authorization") ?? "");
  return match?.[1];
}

export async function authenticate(db: Db, headers: Headers): Promise<Authentication> {
  const token = bearerToken(headers);
  if (token) {
    const user = await findTokenUser(db, token);
    return { user, auth: user ? "token" : null };
  }
  const sessionSecret = readCookie(headers, SESSION_COOKIE);
  if (!sessionSecret) return { user: null, auth: null };
  const user = await findSessionUser(db, sessionSecret);
  return { user, auth: user ? "session" : null, sessionSecret };
}
