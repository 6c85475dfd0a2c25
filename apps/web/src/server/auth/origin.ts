/**
 * CSRF defence for mutations, on top of SameSite=Lax cookies: a request that
 * says where it comes from (Origin, or Sec-Fetch-Site) must come from the
 * portal itself; a request that says nothing is accepted only when it carries
 * no cookie to abuse (the CLI with a Bearer token, or an anonymous client).
 */
import { env } from "../../env.ts";

/** The origin the request was sent to, from the proxy's headers or the URL. */
export function requestOrigin(headers: Headers, url: string): string {
  const base = new URL(url);
  const proto = headers.get("x-forwarded-proto")?.split(",")[0]?.trim() ?? base.protocol.replace(/:$/, "");
  const host = headers.get("x-forwarded-host")?.split(",")[0]?.trim() ?? headers.get("host") ?? base.host;
  return `${proto}://${host}`;
}

export type OriginVerdict = { ok: true } | { ok: false; reason: string };

export function checkOrigin(headers: Headers, ownOrigin: string, allowed: readonly string[] = env.SFBENCH_PUBLIC_ORIGIN): OriginVerdict {
  const origin = headers.get("origin");
  if (origin) {
    if (origin === ownOrigin || allowed.includes(origin)) return { ok: true };
    return { ok: false, reason: `cross-origin request refused: Origin ${origin} is not ${ownOrigin}` };
  }
  const site = headers.get("sec-fetch-site");
  if (site) {
    if (site === "same-origin" || site === "none") return { ok: true };
    return { ok: false, reason: `cross-site request refused (Sec-Fetch-Site: ${site})` };
  }
  if (headers.get("authorization") || !headers.get("cookie")) return { ok: true };
  return { ok: false, reason: "a request with cookies must send an Origin header" };
}
