/** Systems: read one (public); change its description or repository (its owner only). */
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
        description: TargetManifest.shape.description.nullable().optional(),
        repository: TargetManifest.shape.repository.nullable().optional(),
      }),
    )
    .mutation(async ({ ctx, input }) => {
      const system = await ctx.db.system.findUnique({ where: { slug: input.slug }, select: { id: true, ownerId: true } });
      if (!system) throw new TRPCError({ code: "NOT_FOUND", message: `no system "${input.slug}"` });
      if (system.ownerId !== ctx.user.id) throw new TRPCError({ code: "FORBIDDEN", message: `the system "${input.slug}" belongs to another account` });
      return ctx.db.system.update({
        where: { id: system.id },
        data: { description: input.description, repository: input.repository },
        select: { slug: true, description: true, repository: true },
      });
    }),
});
