/** Runs: one run, and its progress (polled by the run page while it is queued or running). */
import { TRPCError } from "@trpc/server";
import { z } from "zod";
import { getRun, getRunProgress } from "../queries/run.ts";
import { publicProcedure, router } from "../trpc/init.ts";

const RunId = z.object({ id: z.uuid({ message: "must be a run id (a UUID)" }) });

export const runsRouter = router({
  byId: publicProcedure.input(RunId).query(async ({ ctx, input }) => {
    const run = await getRun(ctx.db, input.id);
    if (!run) throw new TRPCError({ code: "NOT_FOUND", message: `no run ${input.id}` });
    return run;
  }),

  progress: publicProcedure.input(RunId).query(async ({ ctx, input }) => {
    const progress = await getRunProgress(ctx.db, input.id);
    if (!progress) throw new TRPCError({ code: "NOT_FOUND", message: `no run ${input.id}` });
    return progress;
  }),
});
