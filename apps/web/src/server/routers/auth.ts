/** Accounts: sign up, sign in (a session cookie), sign out, who am I. */
import { TRPCError } from "@trpc/server";
import { z } from "zod";
import { sessionCookie } from "../auth/cookies.ts";
import { dummyHash, hashPassword, verifyPassword } from "../auth/password.ts";
import { createSession, deleteSession } from "../auth/sessions.ts";
import type { Context } from "../trpc/context.ts";
import { fieldError } from "../trpc/errors.ts";
import { publicProcedure, router } from "../trpc/init.ts";

const Email = z.email({ message: "must be an email address like you@example.com" }).max(254).transform((e) => e.toLowerCase());
const Password = z.string().min(10, { message: "must be at least 10 characters" }).max(200, { message: "must be at most 200 characters" });
const Credentials = z.object({ email: Email, password: Password });

async function signIn(ctx: Context, userId: string) {
  const { secret, maxAge } = await createSession(ctx.db, userId);
  ctx.resHeaders.append("set-cookie", sessionCookie(secret, { maxAge, secure: ctx.origin.startsWith("https:") }));
}

export const authRouter = router({
  signUp: publicProcedure.input(Credentials).mutation(async ({ ctx, input }) => {
    const existing = await ctx.db.user.findUnique({ where: { email: input.email }, select: { id: true } });
    if (existing) throw fieldError("email", "an account with this email exists; sign in instead", "CONFLICT");
    const user = await ctx.db.user.create({
      data: { email: input.email, passwordHash: await hashPassword(input.password) },
      select: { id: true, email: true },
    });
    await signIn(ctx, user.id);
    return user;
  }),

  signIn: publicProcedure
    .input(z.object({ email: Email, password: z.string().min(1, { message: "is required" }).max(200) }))
    .mutation(async ({ ctx, input }) => {
      const user = await ctx.db.user.findUnique({ where: { email: input.email }, select: { id: true, email: true, passwordHash: true } });
      const ok = await verifyPassword(user?.passwordHash ?? (await dummyHash()), input.password);
      if (!user || !ok) throw new TRPCError({ code: "UNAUTHORIZED", message: "wrong email or password" });
      await signIn(ctx, user.id);
      return { id: user.id, email: user.email };
    }),

  signOut: publicProcedure.mutation(async ({ ctx }) => {
    if (ctx.sessionSecret) await deleteSession(ctx.db, ctx.sessionSecret);
    ctx.resHeaders.append("set-cookie", sessionCookie("", { maxAge: 0, secure: ctx.origin.startsWith("https:") }));
    return { ok: true };
  }),

  me: publicProcedure.query(({ ctx }) => ctx.user),
});
