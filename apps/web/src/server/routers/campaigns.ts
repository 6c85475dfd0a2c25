/**
 * Campaigns (`sfbench campaign --server`): a submitter's own systems, measured by the worker in interleaved rounds; rate-limited like
 * submissions, one run per trial. The operator may run any registered system, and every one at once (`--all`: the reference campaign).
 */
import { TRPCError } from "@trpc/server";
import { z } from "zod";
import { CampaignInput } from "../../shared/campaign.ts";
import { createCampaign } from "../campaigns/create.ts";
import { isOperator } from "../operator/operator.ts";
import { campaignRuns } from "../campaigns/runs.ts";
import { protectedProcedure, publicProcedure, router } from "../trpc/init.ts";

export const campaignsRouter = router({
  /** the campaign's runs as queued (a busy trial's repeat included), like every run, public */
  runs: publicProcedure.input(z.object({ campaignId: z.uuid({ message: "must be a campaign's id" }) })).query(async ({ ctx, input }) => {
    const runs = await campaignRuns(ctx.db, input.campaignId);
    if (!runs.length) throw new TRPCError({ code: "NOT_FOUND", message: `no campaign ${input.campaignId}` });
    return runs;
  }),
  create: protectedProcedure
    .input(CampaignInput)
    .mutation(({ ctx, input }) =>
      createCampaign(ctx.db, { id: ctx.user.id, operator: isOperator(ctx.user, ctx.portal.operatorEmail) }, input, ctx.limits.submissionsPerHour),
    ),
});
