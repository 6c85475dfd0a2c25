/** A user-given URL as a link target only when it is http(s); anything else (javascript:, data:) is not linked. */
export function safeHref(url: string | null | undefined): string | undefined {
  if (!url || !URL.canParse(url)) return undefined;
  const { protocol } = new URL(url);
  return protocol === "https:" || protocol === "http:" ? url : undefined;
}

/**
 * Where to go after signing in: `next` only when it stays on this site, as the
 * path, query and fragment the browser would go to, or "/". The URL parser,
 * not a pattern, decides: it drops tabs and newlines anywhere ("/\t/evil.example"
 * is "//evil.example", another host) and reads "\" as "/", which a prefix test misses.
 */
export function localPath(next: string | null | undefined): string {
  if (!next || !next.startsWith("/")) return "/";
  const base = "http://sfbench.invalid";
  if (!URL.canParse(next, base)) return "/";
  const url = new URL(next, base);
  if (url.origin !== base) return "/";
  return `${url.pathname}${url.search}${url.hash}`;
}
