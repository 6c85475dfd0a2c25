/**
 * Ratings: one per user and system (1-5 for programming model and
 * understandability, optional comment), editable; not of one's own system.
 * The means count only ratings from accounts with a verified email address
 * (ratings/counted.ts); `rate` says whether the new rating counts, and if not, why.
 */
import { TRPCError } from "@trpc/server";
import { z } from "zod";
import { invalidateLeaderboard } from "../queries/leaderboard-cache.ts";
import { ratingSummary } from "../queries/ratings.ts";
import { raterStanding } from "../ratings/counted.ts";
import { protectedProcedure, publicProcedure, router } from "../trpc/init.ts";
import { Slug } from "./systems.ts";

const Score = z.coerce.number().int().min(1, { message: "must be 1 to 5" }).max(5, { message: "must be 1 to 5" });

export const ratingsRouter = router({
  summary: publicProcedure.input(z.object({ slug: Slug })).query(async ({ ctx, input }) => {
    const system = await ctx.db.system.findUnique({ where: { slug: input.slug }, select: { id: true } });
    if (!system) throw new TRPCError({ code: "NOT_FOUND", message: `no system "${input.slug}"` });
    return ratingSummary(ctx.db, system.id);
  }),

  rate: protectedProcedure
    .input(
      z.object({
        slug: Slug,
        programmingModel: Score,
        understandability: Score,
        comment: z.string().trim().max(2000, { message: "must be at most 2000 characters" }).optional(),
      }),
    )
    .mutation(async ({ ctx, input }) => {
      const system = await ctx.db.system.findUnique({ where: { slug: input.slug }, select: { id: true, ownerId: true } });
      if (!system) throw new TRPCError({ code: "NOT_FOUND", message: `no system "${input.slug}"` });
      if (system.ownerId === ctx.user.id) throw new TRPCError({ code: "FORBIDDEN", message: "you cannot rate your own system" });
      const scores = { programmingModel: input.programmingModel, understandability: input.understandability, comment: input.comment || null };
      await ctx.db.rating.upsert({
        where: { userId_systemId: { userId: ctx.user.id, systemId: system.id } },
        create: { userId: ctx.user.id, systemId: system.id, ...scores },
        update: scores,
      });
      invalidateLeaderboard(ctx.db);
      const standing = raterStanding(ctx.user);
      const summary = await ratingSummary(ctx.db, system.id);
      return standing.counted ? { summary, counted: true as const } : { summary, counted: false as const, why: standing.why };
    }),
});
