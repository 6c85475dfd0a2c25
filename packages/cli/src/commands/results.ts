/**
 * sfbench results import <file|dir>: load result documents into the portal's
 * database (DATABASE_URL, or the local sfbench database), idempotent by run id.
 * One line per file; exit 1 when any file failed.
 */
import { manifestDigest, type ResultDocument } from "@sfbench/core";
import type { FileOutcome } from "@sfbench/db";
import { query, remote } from "../api.ts";
import { parseFlags, UsageError, urlFlag } from "../args.ts";
import { summaryTable } from "../summary.ts";
import { note } from "../progress.ts";
import { needRepository } from "../commands-table.ts";

/** The bundled target.json whose digest the document names, so that the target version gets its manifest. */
function bundledManifest(listTargets: () => Array<{ name: string; manifest: Parameters<typeof manifestDigest>[0] }>, target: ResultDocument["target"]) {
  return listTargets().find((t) => t.name === target.name && manifestDigest(t.manifest) === target.manifestDigest)?.manifest;
}

function line(o: FileOutcome): void {
  if (o.status === "imported") process.stdout.write(`${o.file}: imported run ${o.runId}\n`);
  else if (o.status === "skipped") process.stdout.write(`${o.file}: already imported (run ${o.runId})\n`);
  else process.stderr.write(`${o.file}: failed: ${o.error}\n`);
}

export async function results(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === undefined) throw new UsageError("sfbench results: give a system (sfbench results <system> [--json]) or `import <file|dir>`");
  if (sub !== "import") return systemResults(argv);
  const { positionals } = parseFlags("sfbench results import", rest, {}, { max: 1, names: ["<file|dir>"] });
  // the portal's database and the bundled targets are the repository's
  const [{ closeDb, getDb, importPath, resultFiles }, { listTargets }] = await needRepository("sfbench results import", () =>
    Promise.all([import("@sfbench/db"), import("@sfbench/catalogue")]),
  );
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
    const summary = await importPath(db, target, { manifestFor: (t) => bundledManifest(listTargets, t), onFile: line });
    const { imported, skipped, failed } = summary;
    note(
      `${imported.length + skipped.length + failed.length} file(s): ${imported.length} imported, ${skipped.length} already imported, ${failed.length} failed`,
    );
    return failed.length ? 1 : 0;
  } finally {
    await closeDb();
  }
}

interface SystemRuns {
  slug: string;
  name: string;
  runs: Array<{
    id: string;
    status: string;
    profile: string;
    environmentKind: string;
    nodes: number;
    createdAt: string;
    errorStage: string | null;
    errorMessage: string | null;
  }>;
}

/** sfbench results <system> [--server URL] [--json]: a system's runs and the latest completed one's numbers. */
async function systemResults(argv: string[]): Promise<number> {
  const { values, positionals } = parseFlags(
    "sfbench results",
    argv,
    {
      server: { type: "string", value: "URL", help: "the portal" },
      json: { type: "boolean", help: "print the system's runs and the latest result document as JSON" },
    },
    { max: 1, names: ["<system>"] },
  );
  const slug = positionals[0]!;
  const r = remote(urlFlag("sfbench results", "server", values.server));
  const system = await query<SystemRuns>(r, "systems.bySlug", { slug });
  const latest = system.runs.find((run) => run.status === "completed");
  const doc = latest ? (await query<{ document: ResultDocument | null }>(r, "runs.byId", { id: latest.id })).document : null;
  if (values.json) {
    process.stdout.write(JSON.stringify({ system: { slug: system.slug, name: system.name }, runs: system.runs, latest: doc }, null, 2) + "\n");
    return 0;
  }
  process.stdout.write(`${system.name} (${system.slug}): ${system.runs.length} run(s)\n`);
  for (const run of system.runs.slice(0, 10)) {
    process.stdout.write(
      `  ${run.id}  ${run.status.padEnd(13)} ${run.profile.padEnd(8)} ${run.environmentKind}/${run.nodes}  ${run.createdAt}${run.errorMessage ? `  ${run.errorStage}: ${run.errorMessage}` : ""}\n`,
    );
  }
  process.stdout.write(doc ? `\nlatest completed run ${latest!.id}:\n${summaryTable(doc)}` : "\nno completed run yet\n");
  return 0;
}
