/**
 * The pipeline's needs-cluster branch in one call: a run whose target is an
 * image goes to the cluster when the worker has one, and otherwise stays
 * needs_cluster with the reason the run page shows. With a cluster: the run
 * is marked running, the provider runs it (reporting stages to the run row),
 * and its result document is stored like a local run's.
 */
import { runConformance } from "@sfbench/conformance";
import type { CellChoice, Profile, TargetManifest } from "@sfbench/core";
import { importResult, type Db } from "@sfbench/db";
import { RunProgress } from "../progress.ts";
import type { ClusterProvider } from "./index.ts";
import { needsClusterMessage } from "./message.ts";

export interface ClusterBranchInput {
  runId: string;
  manifest: TargetManifest;
  manifestDigest: string;
  /** Run.nodes */
  nodes: number;
  profile: Profile;
  cells: CellChoice[];
  seed: number;
  signal?: AbortSignal;
}

export type ClusterBranchOutcome =
  { runId: string; status: "completed" | "failed" | "interrupted"; resultPath: string } | { runId: string; status: "needs-cluster"; reason: string };

export async function runNeedingCluster(db: Db, provider: ClusterProvider | undefined, input: ClusterBranchInput): Promise<ClusterBranchOutcome> {
  const { runId } = input;
  if (!provider) {
    const reason = needsClusterMessage(input.manifest.image);
    await db.run.update({ where: { id: runId }, data: { status: "needs_cluster", errorMessage: reason, stage: null } });
    return { runId, status: "needs-cluster", reason };
  }
  const progress = new RunProgress(db, runId);
  await db.run.update({
    where: { id: runId },
    data: { status: "running", startedAt: new Date(), stage: "provision", progress: 1, errorStage: null, errorMessage: null },
  });
  try {
    const out = await provider.run(
      {
        runId,
        manifest: input.manifest,
        manifestDigest: input.manifestDigest,
        nodes: input.nodes,
        profile: input.profile,
        cells: input.cells,
        seed: input.seed,
      },
      {
        verify: (url) => runConformance(url, { budgetMs: 120_000 }),
        onStage: (stage, pct) => void progress.set(stage, pct),
        ...(input.signal ? { signal: input.signal } : {}),
      },
    );
    await importResult(db, out.doc, { resultPath: out.file });
    return { runId, status: out.doc.status, resultPath: out.file };
  } finally {
    await progress.finish();
  }
}
