/**
 * Loads result documents (core result.ts) into the database: the System (by
 * target name) and TargetVersion (by manifest digest) are created when missing,
 * the Run, its immutable RunDocument and its CellResults are written in one
 * transaction. Idempotent by runId; append-only: a run that has a result keeps
 * it, and a different document with the same runId is refused. A failed run is
 * stored with its error and stage and gets no CellResults (never a number).
 *
 * The worker writes through importResult too, which also completes a Run that
 * a submission queued (same runId, same target).
 *
 * A completed run verified its version: the system then shows that version's
 * display name (target.system) and, when its target.json is known, its
 * description and repository, unless a newer version has verified already.
 * Nothing else changes them (a submission that never runs does not).
 */
import { readdir, readFile, stat } from "node:fs/promises";
import path from "node:path";
import {
  costPer1000,
  manifestDigest,
  parseResult,
  judgeCell,
  type Cell,
  type OutcomeSummary,
  type ResultDocument,
  type ResultDocumentInput,
  type TargetManifest,
} from "@sfbench/core";
import { canonicalJson, sha256 } from "./canonical.ts";
import type { Db } from "./client.ts";
import { Prisma } from "./generated/client.ts";
import type { CellHistograms, LatencyByTag, OutcomeRow } from "./json.ts";
import { machineClass } from "./machine-class.ts";

/** The document cannot be imported as it is (invalid, or its manifest does not match). */
export class ImportError extends Error {}

/** The run already has a different result, or belongs to another target. Results are append-only. */
export class ResultConflictError extends ImportError {}

export interface ImportOptions {
  /** the target.json of the run's target version; stored when the version has none yet */
  manifest?: TargetManifest;
  /** where the document was read from (shown on the run page) */
  resultPath?: string;
  /** the user who submitted the run, when it is created here */
  submittedById?: string;
}

export interface ImportOutcome {
  status: "imported" | "skipped";
  runId: string;
}

type Tx = Prisma.TransactionClient;
const json = (value: unknown) => value as Prisma.InputJsonValue;

/** Validates `input` (core parseResult) and stores it; "skipped" when this very document is already stored. */
export async function importResult(db: Db, input: ResultDocumentInput, opts: ImportOptions = {}): Promise<ImportOutcome> {
  const parsed = parseResult(input);
  if (!parsed.ok) throw new ImportError(`invalid result document: ${parsed.errors.join("; ")}`);
  const doc = parsed.result;
  checkCells(doc);
  if (opts.manifest) checkManifest(doc, opts.manifest);
  const digest = sha256(canonicalJson(doc));
  const attempt = () => db.$transaction((tx) => write(tx, doc, digest, opts), { maxWait: 10_000, timeout: 60_000 });
  try {
    return await attempt();
  } catch (error) {
    // Two importers of one runId (or one new system) at once: the loser hits a unique
    // index; on the retry it sees the winner's rows and skips or reports the conflict.
    if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === "P2002") return attempt();
    throw error;
  }
}

function checkCells(doc: ResultDocument): void {
  const seen = new Set<string>();
  doc.cells.forEach((cell, i) => {
    const key = `${cell.workload}/${cell.distribution}`;
    if (seen.has(key)) throw new ImportError(`invalid result document: cells.${i}: a second ${key} cell (one per workload and distribution)`);
    seen.add(key);
  });
}

function checkManifest(doc: ResultDocument, manifest: TargetManifest): void {
  const digest = manifestDigest(manifest);
  if (manifest.name !== doc.target.name || digest !== doc.target.manifestDigest) {
    throw new ImportError(
      `the manifest given (${manifest.name}, ${digest}) is not the run's (target.name ${doc.target.name}, target.manifestDigest ${doc.target.manifestDigest})`,
    );
  }
}

async function write(tx: Tx, doc: ResultDocument, digest: string, opts: ImportOptions): Promise<ImportOutcome> {
  const runId = doc.runId;
  const existing = await tx.run.findUnique({
    where: { id: runId },
    select: {
      resultPath: true,
      system: { select: { slug: true } },
      targetVersion: { select: { manifestDigest: true } },
      document: { select: { digest: true, importedAt: true } },
    },
  });
  if (existing?.document) {
    if (existing.document.digest === digest) return { status: "skipped", runId };
    throw new ResultConflictError(
      `run ${runId} already has a different result document (stored ${existing.document.importedAt.toISOString()}` +
        `${existing.resultPath ? ` from ${existing.resultPath}` : ""}); results are append-only: a new result needs a new runId`,
    );
  }
  if (existing && (existing.system.slug !== doc.target.name || existing.targetVersion.manifestDigest !== doc.target.manifestDigest)) {
    throw new ResultConflictError(
      `run ${runId} was created for ${existing.system.slug} (${existing.targetVersion.manifestDigest}); ` +
        `the document is for ${doc.target.name} (${doc.target.manifestDigest})`,
    );
  }

  const manifest = opts.manifest;
  const system = await tx.system.upsert({
    where: { slug: doc.target.name },
    create: { slug: doc.target.name, name: doc.target.system, description: manifest?.description, repository: manifest?.repository },
    update: {},
    select: { id: true },
  });
  const version = await tx.targetVersion.upsert({
    where: { systemId_manifestDigest: { systemId: system.id, manifestDigest: doc.target.manifestDigest } },
    create: {
      systemId: system.id,
      version: doc.target.version,
      manifestDigest: doc.target.manifestDigest,
      manifest: manifest ? json(manifest) : undefined,
      image: manifest?.image,
    },
    update: {},
    select: { id: true, manifest: true },
  });
  if (manifest && version.manifest === null) {
    await tx.targetVersion.update({ where: { id: version.id }, data: { manifest: json(manifest), image: manifest.image } });
  }

  const seeds = [...new Set(doc.cells.map((c) => c.seed))];
  const run = {
    status: doc.status,
    stage: doc.error?.stage ?? null,
    ...(doc.status === "completed" ? { progress: 100 } : {}),
    environmentKind: doc.environment.kind,
    nodes: doc.environment.nodes,
    environment: json(doc.environment),
    profile: doc.profile,
    seed: seeds.length === 1 ? BigInt(seeds[0]!) : null,
    errorStage: doc.error?.stage ?? null,
    errorMessage: doc.error?.message ?? null,
    startedAt: new Date(doc.startedAt),
    finishedAt: new Date(doc.finishedAt),
    resultPath: opts.resultPath ?? null,
    rawData: json(doc.rawData),
    // the trial this run was (the board takes the median of a campaign's trials on one class of machine)
    campaignId: doc.campaign?.campaignId ?? null,
    trial: doc.campaign?.trial ?? null,
    round: doc.campaign?.round ?? null,
    attempt: doc.campaign?.attempt ?? null,
    busy: doc.noise?.busy ?? null,
    machineClass: machineClass(doc.environment),
  };
  if (existing) await tx.run.update({ where: { id: runId }, data: run });
  else await tx.run.create({ data: { id: runId, systemId: system.id, targetVersionId: version.id, submittedById: opts.submittedById, ...run } });

  await tx.runDocument.create({ data: { runId, digest, document: json(doc) } });
  if (doc.status === "completed" && doc.cells.length > 0) {
    await tx.cellResult.createMany({ data: doc.cells.map((cell) => cellRow(runId, cell)) });
  }
  if (doc.status === "completed") await showVerifiedVersion(tx, system.id, version.id, doc.target.system);
  return { status: "imported", runId };
}

/** The system shows what its newest verified version says about it (see the top of this file). */
async function showVerifiedVersion(tx: Tx, systemId: string, versionId: string, displayName: string): Promise<void> {
  const version = await tx.targetVersion.findUniqueOrThrow({ where: { id: versionId }, select: { createdAt: true, manifest: true } });
  const newer = await tx.targetVersion.count({
    where: { systemId, id: { not: versionId }, createdAt: { gt: version.createdAt }, runs: { some: { status: "completed" } } },
  });
  if (newer > 0) return;
  const manifest = version.manifest as Pick<TargetManifest, "description" | "repository"> | null;
  await tx.system.update({
    where: { id: systemId },
    data: { name: displayName, ...(manifest ? { description: manifest.description ?? null, repository: manifest.repository ?? null } : {}) },
  });
}

/** Outcome summaries without their histograms, and the histograms by key. */
function splitOutcomes(byKey: Record<string, OutcomeSummary>): [Record<string, OutcomeRow>, Record<string, string>] {
  const rows: Record<string, OutcomeRow> = {};
  const histograms: Record<string, string> = {};
  for (const [key, { histogram, ...row }] of Object.entries(byKey)) {
    rows[key] = row;
    if (histogram) histograms[key] = histogram;
  }
  return [rows, histograms];
}

function cellRow(runId: string, cell: Cell): Prisma.CellResultCreateManyInput {
  const { maxThroughput: max, stable, cost } = cell;
  const judged = judgeCell(cell);
  const histograms: CellHistograms = { steps: [] };
  const steps = (max?.steps ?? []).map(({ histogram, ...step }) => {
    histograms.steps.push(histogram ?? null);
    return step;
  });
  if (stable?.histogram) histograms.stable = stable.histogram;
  let latencyByTag: LatencyByTag | undefined;
  for (const key of ["byCartSize", "byShape", "byTopDepth"] as const) {
    const byKey = stable?.[key];
    if (!byKey) continue;
    const [rows, hist] = splitOutcomes(byKey);
    (latencyByTag ??= {})[key] = rows;
    if (Object.keys(hist).length) histograms[key] = hist;
  }
  let setupOps: Record<string, OutcomeRow> | undefined;
  if (cell.setupOps) {
    const [rows, hist] = splitOutcomes(cell.setupOps);
    setupOps = rows;
    if (Object.keys(hist).length) histograms.setupOps = hist;
  }
  return {
    runId,
    workload: cell.workload,
    distribution: cell.distribution,
    seed: BigInt(cell.seed),
    parameters: json(cell.parameters),
    valid: judged.valid,
    invalidReason: judged.invalidReason,
    ranked: judged.rank.ok,
    unrankedBecause: judged.rank.ok ? null : judged.rank.reason,
    maxMovingAvg10s: max?.maxMovingAvg10s ?? null,
    sustainableRate: judged.sustainableRate,
    kneeResolution: judged.kneeResolution,
    kneeStoppedBecause: max?.knee?.stoppedBecause ?? (typeof cell.parameters.kneeStoppedBecause === "string" ? cell.parameters.kneeStoppedBecause : null),
    offeredRate: stable?.offeredRate ?? null,
    achievedRate: stable?.achievedRate ?? null,
    errorRate: stable?.errorRate ?? null,
    p50: stable?.latency.p50 ?? null,
    p95: stable?.latency.p95 ?? null,
    p99: stable?.latency.p99 ?? null,
    p999: stable?.latency.p999 ?? null,
    mean: stable?.latency.mean ?? null,
    max: stable?.latency.max ?? null,
    throughputPerCore: cost?.throughputPerCore ?? null,
    coreSecondsPer1000: costPer1000(cost) ?? null,
    peakRssBytes: cost ? BigInt(cost.peakRssBytes) : null,
    generatorCpuShare: cost?.generatorCpuShare ?? null,
    anomaliesTotal: cell.anomalies?.total ?? null,
    anomalies: cell.anomalies ? json(cell.anomalies) : undefined,
    steps: json(steps),
    latencyByTag: latencyByTag ? json(latencyByTag) : undefined,
    setupOps: setupOps ? json(setupOps) : undefined,
    series: json(cell.series),
    histograms: json(histograms),
    breakdown: cell.breakdown ? json(cell.breakdown) : undefined,
  };
}

// ---------------------------------------------------------------- files

export interface FileOutcome {
  file: string;
  status: "imported" | "skipped" | "failed";
  runId?: string;
  /** why it failed: `<field>: <problem>` lines joined with "; " */
  error?: string;
}

export interface ImportSummary {
  imported: { file: string; runId: string }[];
  skipped: { file: string; runId: string }[];
  failed: { file: string; error: string }[];
}

export interface ImportPathOptions {
  /** the target.json for a document's target, if known (e.g. a bundled target whose digest matches) */
  manifestFor?: (target: ResultDocument["target"]) => TargetManifest | undefined;
  /** called after each file, in order */
  onFile?: (outcome: FileOutcome) => void;
}

/** The result documents at `target`: the file itself, or every *.json below the directory (but campaign documents), sorted. */
export async function resultFiles(target: string): Promise<string[]> {
  let info;
  try {
    info = await stat(target);
  } catch (e) {
    throw new ImportError(`cannot read ${target}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  if (!info.isDirectory()) return [target];
  const entries = await readdir(target, { recursive: true, withFileTypes: true });
  return (
    entries
      // a campaign's own document (results/campaigns/<id>/campaign.json) sits beside its trials' result documents and is not one
      .filter((e) => e.isFile() && e.name.endsWith(".json") && e.name !== "campaign.json")
      .map((e) => path.join(e.parentPath, e.name))
      .sort()
  );
}

/** Imports one file or every *.json below a directory; one bad file does not stop the others. */
export async function importPath(db: Db, target: string, opts: ImportPathOptions = {}): Promise<ImportSummary> {
  const summary: ImportSummary = { imported: [], skipped: [], failed: [] };
  for (const file of await resultFiles(target)) {
    const outcome = await importFile(db, file, opts);
    if (outcome.status === "failed") summary.failed.push({ file, error: outcome.error ?? "" });
    else summary[outcome.status].push({ file, runId: outcome.runId ?? "" });
    opts.onFile?.(outcome);
  }
  return summary;
}

async function importFile(db: Db, file: string, opts: ImportPathOptions): Promise<FileOutcome> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (e) {
    return { file, status: "failed", error: `cannot read: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}` };
  }
  const parsed = parseResult(text);
  if (!parsed.ok) return { file, status: "failed", error: parsed.errors.join("; ") };
  try {
    const manifest = opts.manifestFor?.(parsed.result.target);
    const { status, runId } = await importResult(db, parsed.result, { manifest, resultPath: path.resolve(file) });
    return { file, status, runId };
  } catch (e) {
    return { file, status: "failed", runId: parsed.result.runId, error: (e as Error).message };
  }
}
