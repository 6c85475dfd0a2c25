/** A user-given URL as a link target only when it is http(s); anything else (javascript:, data:) is not linked. */
export function safeHref(url: string | null | undefined): string | undefined {
  if (!url || !URL.canParse(url)) return undefined;
  const { protocol } = new URL(url);
  return protocol === "https:" || protocol === "http:" ? url : undefined;
}
