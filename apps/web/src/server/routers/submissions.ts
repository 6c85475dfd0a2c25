/** Submissions (web form and `sfbench submit`): validated with the form's schema, rate-limited per user. */
import { SubmitInput } from "../../shared/submit.ts";
import { submit } from "../submissions/submit.ts";
import { protectedProcedure, router } from "../trpc/init.ts";

export const submissionsRouter = router({
  submit: protectedProcedure.input(SubmitInput).mutation(({ ctx, input }) => submit(ctx.db, ctx.user.id, input, ctx.limits.submissionsPerHour, ctx.uploads.dataDir)),
});
