/** The session cookie: httpOnly, SameSite=Lax, Secure on https; parsed from and written to plain headers. */

export const SESSION_COOKIE = "sfbench_session";

/** The value of one cookie from a Cookie header, or undefined. */
export function readCookie(headers: Headers, name: string): string | undefined {
  const header = headers.get("cookie");
  if (!header) return undefined;
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq < 0) continue;
    if (part.slice(0, eq).trim() === name) {
      const value = part.slice(eq + 1).trim();
      try {
        return decodeURIComponent(value);
      } catch {
        return undefined;
      }
    }
  }
  return undefined;
}

export interface CookieOptions {
  /** seconds; 0 deletes the cookie */
  maxAge: number;
  secure: boolean;
}

export function sessionCookie(value: string, opts: CookieOptions): string {
  const parts = [`${SESSION_COOKIE}=${encodeURIComponent(value)}`, "Path=/", "HttpOnly", "SameSite=Lax", `Max-Age=${opts.maxAge}`];
  if (opts.secure) parts.push("Secure");
  return parts.join("; ");
}
