/** API tokens for the CLI: created (the token is returned this once, with the days it works), listed (never the token), revoked. Only one's own. */
import { TRPCError } from "@trpc/server";
import { z } from "zod";
import { DEFAULT_TOKEN_DAYS } from "../../shared/token-days.ts";
import { createApiToken } from "../auth/api-tokens.ts";
import { protectedProcedure, router } from "../trpc/init.ts";

export const tokensRouter = router({
  list: protectedProcedure.query(({ ctx }) =>
    ctx.db.apiToken.findMany({
      where: { userId: ctx.user.id },
      orderBy: { createdAt: "desc" },
      select: { id: true, name: true, prefix: true, createdAt: true, lastUsedAt: true, revokedAt: true, expiresAt: true },
    }),
  ),

  create: protectedProcedure
    .input(
      z.object({
        name: z.string().trim().min(1, { message: "give the token a name, e.g. the machine it is for" }).max(100),
        /** days until it expires; null: until revoked */
        days: z
          .number()
          .int()
          .min(1, { message: "must be at least 1 day, or null for a token that works until revoked" })
          .max(3650, { message: "must be at most 3650 days (ten years), or null for a token that works until revoked" })
          .nullable()
          .default(DEFAULT_TOKEN_DAYS),
      }),
    )
    .mutation(({ ctx, input }) => createApiToken(ctx.db, ctx.user.id, input.name, input.days)),

  revoke: protectedProcedure.input(z.object({ id: z.uuid({ message: "must be a token id" }) })).mutation(async ({ ctx, input }) => {
    const { count } = await ctx.db.apiToken.updateMany({
      where: { id: input.id, userId: ctx.user.id, revokedAt: null },
      data: { revokedAt: new Date() },
    });
    if (count === 0) throw new TRPCError({ code: "NOT_FOUND", message: "no active token of yours has this id" });
    return { ok: true };
  }),
});
