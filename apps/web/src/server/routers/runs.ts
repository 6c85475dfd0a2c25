/**
 * Runs: one run, and its progress (polled by the run page while it is queued or
 * running). Both answer anyone, so they return what the run page shows and
 * nothing about the server (not where the worker keeps the result file).
 */
import { TRPCError } from "@trpc/server";
import { z } from "zod";
import { getRun, getRunProgress, type RunPage } from "../queries/run.ts";
import { publicProcedure, router } from "../trpc/init.ts";

const RunId = z.object({ id: z.uuid({ message: "must be a run id (a UUID)" }) });

/** The public view of a run: a list of what is published, so that a column added to the run page's query is not published by accident. */
export function publicRun(run: RunPage) {
  return {
    id: run.id,
    status: run.status,
    stage: run.stage,
    progress: run.progress,
    errorStage: run.errorStage,
    errorMessage: run.errorMessage,
    createdAt: run.createdAt,
    startedAt: run.startedAt,
    finishedAt: run.finishedAt,
    environmentKind: run.environmentKind,
    nodes: run.nodes,
    profile: run.profile,
    environment: run.environment,
    system: { slug: run.system.slug, name: run.system.name },
    targetVersion: { version: run.targetVersion.version, manifestDigest: run.targetVersion.manifestDigest },
    /** the stored result document, as the JSON download serves it */
    document: run.document,
    documentDigest: run.documentDigest,
  };
}

export const runsRouter = router({
  byId: publicProcedure.input(RunId).query(async ({ ctx, input }) => {
    const run = await getRun(ctx.db, input.id);
    if (!run) throw new TRPCError({ code: "NOT_FOUND", message: `no run ${input.id}` });
    return publicRun(run);
  }),

  progress: publicProcedure.input(RunId).query(async ({ ctx, input }) => {
    const progress = await getRunProgress(ctx.db, input.id);
    if (!progress) throw new TRPCError({ code: "NOT_FOUND", message: `no run ${input.id}` });
    return progress;
  }),
});
