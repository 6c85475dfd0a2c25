/**
 * A stored result document as a ResultDocument. RunDocument.document is written
 * only by @sfbench/db's importResult, after parseResult, and never updated, so
 * readers take it as it is instead of validating it again on every page view
 * (that costs ~3 ms a document). Only the shape guard below runs.
 */
import type { ResultDocument } from "@sfbench/core";

export function storedResult(json: unknown): ResultDocument | null {
  const doc = json as Partial<ResultDocument> | null;
  return doc && typeof doc === "object" && typeof doc.runId === "string" && Array.isArray(doc.cells) ? (doc as ResultDocument) : null;
}
