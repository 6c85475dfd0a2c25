/** The run page and its downloads: the run row, its target, its stored result document, its progress. */
import type { ResultDocument } from "@sfbench/core";
import type { Db, EnvironmentJson } from "@sfbench/db";
import { storedResult } from "./stored-result.ts";
import { manifestView } from "./manifest-view.ts";

const progressSelect = {
  id: true,
  status: true,
  stage: true,
  progress: true,
  live: true,
  errorStage: true,
  errorMessage: true,
  createdAt: true,
  startedAt: true,
  finishedAt: true,
} as const;

/**
 * A run's progress and, while it is queued, how many runs the worker takes
 * before it: those queued earlier (it takes them oldest first) and those
 * running now. A run queued behind an earlier campaign says so instead of
 * seeming stuck.
 */
export async function getRunProgress(db: Db, id: string) {
  const run = await db.run.findUnique({ where: { id }, select: progressSelect });
  if (!run) return null;
  const ahead =
    run.status === "queued" ? await db.run.count({ where: { OR: [{ status: "running" }, { status: "queued", createdAt: { lt: run.createdAt } }] } }) : null;
  return { ...run, ahead };
}
export type RunProgress = NonNullable<Awaited<ReturnType<typeof getRunProgress>>>;

export async function getRun(db: Db, id: string) {
  const run = await db.run.findUnique({
    where: { id },
    select: {
      ...progressSelect,
      environmentKind: true,
      nodes: true,
      environment: true,
      profile: true,
      resultPath: true,
      system: { select: { slug: true, name: true } },
      targetVersion: { select: { version: true, manifestDigest: true, manifest: true } },
      document: { select: { document: true, digest: true } },
    },
  });
  if (!run) return null;
  const { document, environment, ...rest } = run;
  return {
    ...rest,
    // anyone may read a run: its target's environment values stay with the system's owner
    targetVersion: { ...rest.targetVersion, manifest: manifestView(rest.targetVersion.manifest, false) },
    environment: environment as EnvironmentJson | null,
    document: document ? storedResult(document.document) : null,
    documentDigest: document?.digest ?? null,
  };
}
export type RunPage = NonNullable<Awaited<ReturnType<typeof getRun>>>;

/** The stored result document as it was imported (the JSON download). */
export async function getRunDocument(db: Db, id: string): Promise<ResultDocument | null> {
  const row = await db.runDocument.findUnique({ where: { runId: id }, select: { document: true } });
  return row ? storedResult(row.document) : null;
}
