/** The signed-in user of a page request (session cookie), for server components. */
import { headers } from "next/headers";
import { authenticate } from "./auth/authenticate.ts";
import { SESSION_COOKIE } from "./auth/cookies.ts";
import type { SessionUser } from "./auth/sessions.ts";
import { getDb } from "./db.ts";

export async function getViewer(): Promise<SessionUser | null> {
  const h = await headers();
  if (!h.get("cookie")?.includes(`${SESSION_COOKIE}=`)) return null; // anonymous: no query
  const { user } = await authenticate(await getDb(), new Headers(h));
  return user;
}
