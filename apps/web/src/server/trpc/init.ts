/**
 * tRPC v11: the procedure builders. Reading is public; `protectedProcedure`
 * needs a signed-in user (session cookie or API token). Every mutation passes
 * the CSRF origin check. Bad input is a 400 whose `data.fields` names the
 * field; database conflicts map to 409/404, never a 500.
 */
import { Prisma } from "@sfbench/db";
import { initTRPC, TRPCError } from "@trpc/server";
import { checkOrigin } from "../auth/origin.ts";
import type { Context } from "./context.ts";
import { issuesToFields, RetryAfterCause, summarize } from "./errors.ts";

const t = initTRPC.context<Context>().create({
  errorFormatter({ shape, error }) {
    const fields = error.code === "BAD_REQUEST" || error.cause ? issuesToFields(error.cause) : undefined;
    const message = error.code === "INTERNAL_SERVER_ERROR" ? "internal error: the server failed; try again later" : fields ? summarize(fields) : shape.message;
    // a 429 says when to retry (also sent as the Retry-After header, trpc/http.ts)
    const retryAfterSeconds = error.cause instanceof RetryAfterCause ? error.cause.retryAfterSeconds() : null;
    return { ...shape, message, data: { ...shape.data, fields: fields ?? null, retryAfterSeconds, stack: undefined } };
  },
});

export const router = t.router;
export const createCallerFactory = t.createCallerFactory;

/** Known Prisma errors of a well-formed request (a unique index, a missing row) are the client's, not a 500. */
const prismaErrors = t.middleware(async ({ next }) => {
  const result = await next();
  if (!result.ok && result.error.cause instanceof Prisma.PrismaClientKnownRequestError) {
    const { code } = result.error.cause;
    if (code === "P2002") throw new TRPCError({ code: "CONFLICT", message: "that already exists", cause: result.error.cause });
    if (code === "P2025") throw new TRPCError({ code: "NOT_FOUND", message: "not found", cause: result.error.cause });
  }
  return result;
});

const csrf = t.middleware(({ ctx, type, next }) => {
  if (type === "mutation") {
    const verdict = checkOrigin(ctx.headers, ctx.origin);
    if (!verdict.ok) throw new TRPCError({ code: "FORBIDDEN", message: verdict.reason });
  }
  return next();
});

export const publicProcedure = t.procedure.use(prismaErrors).use(csrf);

export const protectedProcedure = publicProcedure.use(({ ctx, next }) => {
  if (!ctx.user) throw new TRPCError({ code: "UNAUTHORIZED", message: "sign in (or send Authorization: Bearer <API token>) to do this" });
  return next({ ctx: { ...ctx, user: ctx.user } });
});
