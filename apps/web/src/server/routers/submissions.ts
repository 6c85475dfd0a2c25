/** Submissions (web form and `sfbench submit`): validated with the form's schema, rate-limited per user; bundled targets' names are the operator's. */
import { SubmitInput } from "../../shared/submit.ts";
import { reserveBundledName } from "../operator/operator.ts";
import { register, submit } from "../submissions/submit.ts";
import { protectedProcedure, router } from "../trpc/init.ts";

export const submissionsRouter = router({
  submit: protectedProcedure.input(SubmitInput).mutation(async ({ ctx, input }) => {
    await reserveBundledName(ctx.db, ctx.user, input, ctx.portal.operatorEmail);
    return submit(ctx.db, ctx.user.id, input, ctx.limits.submissionsPerHour, ctx.uploads);
  }),
  /** the system and version only, no run: a campaign (campaigns.create) measures it next */
  register: protectedProcedure.input(SubmitInput).mutation(async ({ ctx, input }) => {
    await reserveBundledName(ctx.db, ctx.user, input, ctx.portal.operatorEmail);
    return register(ctx.db, ctx.user.id, input, ctx.limits.submissionsPerHour, ctx.uploads);
  }),
});
