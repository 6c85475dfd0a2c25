import { runDownload } from "../../../../server/downloads/respond.ts";

export const dynamic = "force-dynamic";

export function GET(_req: Request, { params }: { params: Promise<{ id: string }> }) {
  return runDownload(params, "result.json", "application/json", (doc) => JSON.stringify(doc, null, 2) + "\n");
}
