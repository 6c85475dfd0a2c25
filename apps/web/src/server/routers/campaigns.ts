/** Campaigns (`sfbench campaign --server`): a submitter's own systems, measured by the worker in interleaved rounds; rate-limited like submissions, one run per trial. */
import { CampaignInput } from "../../shared/campaign.ts";
import { createCampaign } from "../campaigns/create.ts";
import { protectedProcedure, router } from "../trpc/init.ts";

export const campaignsRouter = router({
  create: protectedProcedure.input(CampaignInput).mutation(({ ctx, input }) => createCampaign(ctx.db, ctx.user.id, input, ctx.limits.submissionsPerHour)),
});
