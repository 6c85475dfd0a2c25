/**
 * Accounts: sign up, sign in (a session cookie), sign out, who am I.
 *
 * Both sign-up and sign-in are throttled per account and per address
 * (auth/throttle.ts): 429 with Retry-After and the time in the message.
 * Sign-up does not tell whether the email already has an account: it answers
 * the same either way, takes as long (one argon2id hash), and signs nobody in;
 * the form then signs in with the same email and password, which works for a
 * new account or for the owner of an existing one. A new account is mailed a
 * verification link (in the background, so that the answer takes as long as
 * for an existing email); `resendVerification` mails another, and
 * `verifyEmail` follows one (auth/email-verification.ts). The operator's
 * address (SFBENCH_OPERATOR_EMAIL) cannot sign up: its account is made
 * through a link `npm run operator` prints on the portal's machine
 * (`claimOperator`, operator/setup.ts), so nobody can hold it by signing up
 * first.
 */
import { TRPCError } from "@trpc/server";
import { z } from "zod";
import { sessionCookie } from "../auth/cookies.ts";
import { deviceOf, issueDeviceCookie } from "../auth/device-cookies.ts";
import { sendVerification, verifyEmail } from "../auth/email-verification.ts";
import { dummyHash, hashPassword, verifyPassword } from "../auth/password.ts";
import { claimOperator } from "../operator/setup.ts";
import { isOperator } from "../operator/operator.ts";
import { createSession, deleteSession } from "../auth/sessions.ts";
import { attemptSucceeded, beginAttempt } from "../auth/throttle.ts";
import { listenOrigin } from "../portal-settings.ts";
import type { Context } from "../trpc/context.ts";
import { fieldError } from "../trpc/errors.ts";
import { protectedProcedure, publicProcedure, router } from "../trpc/init.ts";

const Email = z
  .email({ message: "must be an email address like you@example.com" })
  .max(254)
  .transform((e) => e.toLowerCase());
const Password = z.string().min(10, { message: "must be at least 10 characters" }).max(200, { message: "must be at most 200 characters" });
const Credentials = z.object({ email: Email, password: Password });

/**
 * Where a mailed link points: the configured public origin, else where the
 * portal listens; the request's own origin only in-process, where no server
 * listens (the tests' callers) and no stranger sends the headers it comes from.
 */
const linkOrigin = (ctx: Context) => ctx.portal.linkOrigin ?? listenOrigin() ?? ctx.origin;

async function signIn(ctx: Context, userId: string) {
  const { secret, maxAge } = await createSession(ctx.db, userId);
  ctx.resHeaders.append("set-cookie", sessionCookie(secret, { maxAge, secure: ctx.origin.startsWith("https:") }));
}

export const authRouter = router({
  signUp: publicProcedure.input(Credentials).mutation(async ({ ctx, input }) => {
    await beginAttempt(ctx.db, { action: "sign-up", email: input.email, address: ctx.address }, ctx.limits);
    if (ctx.portal.operatorEmail !== null && input.email === ctx.portal.operatorEmail)
      throw fieldError(
        "email",
        "this is the portal operator's address: its account is made on the portal's machine with `npm run operator -w @sfbench/web -- --email <address>`, through the link it prints",
        "FORBIDDEN",
      );
    const passwordHash = await hashPassword(input.password);
    // an existing email is left as it is (its password unchanged), with the same answer
    const created = await ctx.db.user.createManyAndReturn({
      data: [{ email: input.email, passwordHash }],
      skipDuplicates: true,
      select: { id: true, email: true },
    });
    for (const user of created) {
      // not awaited: a new account must not answer later than an existing one; the user can resend and then sees any error
      void sendVerification(ctx.db, user, linkOrigin(ctx), ctx.portal.verification).catch((e: Error) => {
        process.stderr.write(`verification mail to ${user.email} not sent: ${e.message}\n`);
      });
    }
    return { email: input.email, next: "sign in with this email and password; a link to verify the address is on its way" };
  }),

  signIn: publicProcedure
    .input(z.object({ email: Email, password: z.string().min(1, { message: "is required" }).max(200) }))
    .mutation(async ({ ctx, input }) => {
      const device = await deviceOf(ctx.db, ctx.headers, input.email);
      const attempt = await beginAttempt(ctx.db, { action: "sign-in", email: input.email, address: ctx.address, device }, ctx.limits);
      const user = await ctx.db.user.findUnique({ where: { email: input.email }, select: { id: true, email: true, passwordHash: true } });
      const ok = await verifyPassword(user?.passwordHash ?? (await dummyHash()), input.password);
      if (!user || !ok) throw new TRPCError({ code: "UNAUTHORIZED", message: "wrong email or password" });
      await attemptSucceeded(ctx.db, attempt);
      await signIn(ctx, user.id);
      // this browser is the account's from now on: its next sign-ins are not held up by strangers' wrong passwords
      if (!device) ctx.resHeaders.append("set-cookie", await issueDeviceCookie(ctx.db, user.id, ctx.origin.startsWith("https:")));
      return { id: user.id, email: user.email };
    }),

  signOut: publicProcedure.mutation(async ({ ctx }) => {
    if (ctx.sessionSecret) await deleteSession(ctx.db, ctx.sessionSecret);
    ctx.resHeaders.append("set-cookie", sessionCookie("", { maxAge: 0, secure: ctx.origin.startsWith("https:") }));
    return { ok: true };
  }),

  me: publicProcedure.query(({ ctx }) =>
    ctx.user
      ? { id: ctx.user.id, email: ctx.user.email, emailVerified: ctx.user.emailVerifiedAt !== null, operator: isOperator(ctx.user, ctx.portal.operatorEmail) }
      : null,
  ),

  /** Follows an operator link (`npm run operator`): the account of its address gets this password and is the operator's; signs it in. */
  claimOperator: publicProcedure
    .input(z.object({ token: z.string().min(1, { message: "is required" }).max(200), password: Password }))
    .mutation(async ({ ctx, input }) => {
      const { userId, email } = await claimOperator(ctx.db, input.token, input.password);
      await signIn(ctx, userId);
      return { email, operator: ctx.portal.operatorEmail === email };
    }),

  /** Mails a new verification link to the signed-in account's address (at most SFBENCH_VERIFICATION_EMAILS_PER_HOUR an hour). */
  resendVerification: protectedProcedure.mutation(async ({ ctx }) => {
    if (ctx.user.emailVerifiedAt) return { alreadyVerified: true as const, email: ctx.user.email };
    const sent = await sendVerification(ctx.db, ctx.user, linkOrigin(ctx), ctx.portal.verification);
    return { alreadyVerified: false as const, email: sent.sentTo, expiresAt: sent.expiresAt.toISOString() };
  }),

  /** Follows a verification link (the token from its query) as the signed-in account that asked for it: the address is verified, the token used up. */
  verifyEmail: publicProcedure.input(z.object({ token: z.string().min(1, { message: "is required" }).max(200) })).mutation(async ({ ctx, input }) => {
    const { email } = await verifyEmail(ctx.db, input.token, ctx.user?.id);
    return { email, verified: true as const };
  }),
});
