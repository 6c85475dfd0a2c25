/**
 * Systems: read one (public); change its repository link (its owner only). The
 * display name and description come from the target.json of the newest version
 * that verified (@sfbench/db importResult), never from an edit or an unrun
 * submission.
 */
import { TargetManifest } from "@sfbench/core";
import { TRPCError } from "@trpc/server";
import { z } from "zod";
import { getSystem } from "../queries/system.ts";
import { protectedProcedure, publicProcedure, router } from "../trpc/init.ts";

export const Slug = TargetManifest.shape.name;

export const systemsRouter = router({
  bySlug: publicProcedure.input(z.object({ slug: Slug })).query(async ({ ctx, input }) => {
    const system = await getSystem(ctx.db, input.slug, ctx.user?.id);
    if (!system) throw new TRPCError({ code: "NOT_FOUND", message: `no system "${input.slug}"` });
    return system;
  }),

  update: protectedProcedure
    .input(
      z.object({
        slug: Slug,
        repository: TargetManifest.shape.repository.nullable(),
      }),
    )
    .mutation(async ({ ctx, input }) => {
      const system = await ctx.db.system.findUnique({ where: { slug: input.slug }, select: { id: true, ownerId: true } });
      if (!system) throw new TRPCError({ code: "NOT_FOUND", message: `no system "${input.slug}"` });
      if (system.ownerId !== ctx.user.id) throw new TRPCError({ code: "FORBIDDEN", message: `the system "${input.slug}" belongs to another account` });
      return ctx.db.system.update({
        where: { id: system.id },
        data: { repository: input.repository },
        select: { slug: true, description: true, repository: true },
      });
    }),
});
