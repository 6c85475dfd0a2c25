/**
 * sfbench results import <file|dir>: load result documents into the portal's
 * database (DATABASE_URL, or the local sfbench database), idempotent by run id.
 * One line per file; exit 1 when any file failed.
 */
import { manifestDigest, type ResultDocument } from "@sfbench/core";
import { closeDb, getDb, importPath, resultFiles, type FileOutcome } from "@sfbench/db";
import { listTargets } from "@sfbench/provider-local";
import { parseFlags, UsageError } from "../args.ts";
import { note } from "../progress.ts";

/** The bundled target.json whose digest the document names, so that the target version gets its manifest. */
function bundledManifest(target: ResultDocument["target"]) {
  return listTargets().find((t) => t.name === target.name && manifestDigest(t.manifest) === target.manifestDigest)?.manifest;
}

function line(o: FileOutcome): void {
  if (o.status === "imported") process.stdout.write(`${o.file}: imported run ${o.runId}\n`);
  else if (o.status === "skipped") process.stdout.write(`${o.file}: already imported (run ${o.runId})\n`);
  else process.stderr.write(`${o.file}: failed: ${o.error}\n`);
}

export async function results(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub !== "import") throw new UsageError(`sfbench results: unknown subcommand "${sub ?? ""}"; allowed: import`);
  const { positionals } = parseFlags("sfbench results import", rest, {}, { max: 1, names: ["<file|dir>"] });
  const target = positionals[0];
  if (!target) throw new UsageError("sfbench results import: missing <file|dir> (a result document or a directory of them)");
  const files = await resultFiles(target).catch((e: Error) => {
    throw new UsageError(`sfbench results import: ${e.message}`);
  });
  if (files.length === 0) {
    note(`${target}: no result documents (*.json) found`);
    return 1;
  }
  try {
    const db = await getDb({ onProgress: note });
    const summary = await importPath(db, target, { manifestFor: bundledManifest, onFile: line });
    const { imported, skipped, failed } = summary;
    note(`${imported.length + skipped.length + failed.length} file(s): ${imported.length} imported, ${skipped.length} already imported, ${failed.length} failed`);
    return failed.length ? 1 : 0;
  } finally {
    await closeDb();
  }
}
