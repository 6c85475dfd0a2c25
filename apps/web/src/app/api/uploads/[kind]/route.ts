/** Uploads (/api/uploads/image-archive, /api/uploads/source-archive): the file is the request body, streamed to disk. */
import { handleUpload } from "../../../../server/uploads/http.ts";

export const dynamic = "force-dynamic";

export async function POST(req: Request, ctx: { params: Promise<{ kind: string }> }) {
  return handleUpload(req, (await ctx.params).kind);
}
