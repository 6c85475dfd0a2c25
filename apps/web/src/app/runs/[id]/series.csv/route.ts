import { seriesCsv } from "../../../../server/downloads/csv.ts";
import { runDownload } from "../../../../server/downloads/respond.ts";

export const dynamic = "force-dynamic";

export function GET(_req: Request, { params }: { params: Promise<{ id: string }> }) {
  return runDownload(params, "series.csv", "text/csv", seriesCsv);
}
