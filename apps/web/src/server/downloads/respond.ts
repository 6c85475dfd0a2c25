/** The download routes of a run: the stored document as JSON or CSV, 404 for an unknown run or one without a document. */
import type { ResultDocument } from "@sfbench/core";
import { getDb } from "../db.ts";
import { getRunDocument } from "../queries/run.ts";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export async function runDownload(
  params: Promise<{ id: string }>,
  file: string,
  contentType: string,
  render: (doc: ResultDocument) => string,
): Promise<Response> {
  const { id } = await params;
  const doc = UUID.test(id) ? await getRunDocument(await getDb(), id) : null;
  if (!doc) return new Response(`no result document for run ${id}\n`, { status: 404, headers: { "content-type": "text/plain; charset=utf-8" } });
  return new Response(render(doc), {
    headers: {
      "content-type": `${contentType}; charset=utf-8`,
      "content-disposition": `attachment; filename="sfbench-${doc.target.name}-${id.slice(0, 8)}-${file}"`,
      // results are append-only: a stored document never changes
      "cache-control": "public, max-age=86400, immutable",
    },
  });
}
