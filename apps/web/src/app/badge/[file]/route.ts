/** GET /badge/<system>.svg: the system's headline number (checkout sustainable rate: the median of its latest campaign, else its latest run) from its stored runs. */
import { badgeSvg } from "../../../server/badge-svg.ts";
import { getDb } from "../../../server/db.ts";
import { getHeadline } from "../../../server/queries/badge.ts";

export const dynamic = "force-dynamic";

export async function GET(_req: Request, { params }: { params: Promise<{ file: string }> }) {
  const { file } = await params;
  const slug = /^([a-z0-9][a-z0-9-]{0,62})\.svg$/.exec(decodeURIComponent(file))?.[1];
  const headline = slug ? await getHeadline(await getDb(), slug) : null;
  let value: string;
  let color: string;
  let status = 200;
  if (!headline) [value, color, status] = ["unknown system", "#9f9f9f", 404];
  else if (!headline.result) [value, color] = ["no result yet", "#9f9f9f"];
  else if (headline.result.rate === null) [value, color] = ["checkout: not sustainable", "#e05d44"];
  else {
    const rate = `${Math.round(headline.result.rate).toLocaleString("en-US")} checkouts/s`;
    [value, color] = [headline.result.n > 1 ? `${rate} (median of ${headline.result.n})` : rate, "#2f5bd3"];
  }
  return new Response(badgeSvg("sfbench", value, color), {
    status,
    headers: { "content-type": "image/svg+xml; charset=utf-8", "cache-control": "public, max-age=300" },
  });
}
