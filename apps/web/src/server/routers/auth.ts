/**
 * Accounts: sign up, sign in (a session cookie), sign out, who am I.
 *
 * Both sign-up and sign-in are throttled per account and per address
 * (auth/throttle.ts): 429 with Retry-After and the time in the message.
 * Sign-up does not tell whether the email already has an account: it answers
 * the same either way, takes as long (one argon2id hash), and signs nobody in;
 * the form then signs in with the same email and password, which works for a
 * new account or for the owner of an existing one.
 */
import { TRPCError } from "@trpc/server";
import { z } from "zod";
import { sessionCookie } from "../auth/cookies.ts";
import { dummyHash, hashPassword, verifyPassword } from "../auth/password.ts";
import { createSession, deleteSession } from "../auth/sessions.ts";
import { attemptSucceeded, beginAttempt } from "../auth/throttle.ts";
import type { Context } from "../trpc/context.ts";
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
    await beginAttempt(ctx.db, { action: "sign-up", email: input.email, address: ctx.address }, ctx.limits);
    const passwordHash = await hashPassword(input.password);
    // an existing email is left as it is (its password unchanged), with the same answer
    await ctx.db.user.createMany({ data: [{ email: input.email, passwordHash }], skipDuplicates: true });
    return { email: input.email, next: "sign in with this email and password" };
  }),

  signIn: publicProcedure
    .input(z.object({ email: Email, password: z.string().min(1, { message: "is required" }).max(200) }))
    .mutation(async ({ ctx, input }) => {
      const attempt = await beginAttempt(ctx.db, { action: "sign-in", email: input.email, address: ctx.address }, ctx.limits);
      const user = await ctx.db.user.findUnique({ where: { email: input.email }, select: { id: true, email: true, passwordHash: true } });
      const ok = await verifyPassword(user?.passwordHash ?? (await dummyHash()), input.password);
      if (!user || !ok) throw new TRPCError({ code: "UNAUTHORIZED", message: "wrong email or password" });
      await attemptSucceeded(ctx.db, attempt);
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
