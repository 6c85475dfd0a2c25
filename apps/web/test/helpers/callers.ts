/**
 * tRPC callers as the HTTP handler would build them: a Request with headers
 * (Origin, Cookie, Authorization), the real context (authentication against the
 * database) and the real router. `browser()` signs up, signs in and keeps the cookie.
 */
import type { Db } from "@sfbench/db";
import { TRPCError } from "@trpc/server";
import { expect } from "vitest";
import { createCaller } from "../../src/server/routers/app.ts";
import { createContext, type Context } from "../../src/server/trpc/context.ts";
import { issuesToFields } from "../../src/server/trpc/errors.ts";
import type { UploadSettings } from "../../src/server/uploads/limits.ts";

export const ORIGIN = "http://127.0.0.1:3000";

export interface CallerOptions {
  headers?: Record<string, string>;
  limits?: Partial<Context["limits"]>;
  uploads?: UploadSettings;
  /** the operator and the verification mail (default: the environment's, i.e. links written to the log) */
  portal?: Partial<Context["portal"]>;
}

export async function caller(db: Db, opts: CallerOptions = {}) {
  const resHeaders = new Headers();
  const req = new Request(`${ORIGIN}/api/trpc`, { headers: opts.headers });
  const ctx = await createContext({ db, req, resHeaders, limits: opts.limits, portal: opts.portal, ...(opts.uploads ? { uploads: opts.uploads } : {}) });
  return { api: createCaller(ctx), resHeaders, ctx };
}

/** The session cookie a response set, as a Cookie header value. */
export function cookieFrom(resHeaders: Headers): string {
  const set = resHeaders.getSetCookie().find((c) => c.startsWith("sfbench_session="));
  if (!set) throw new Error("no session cookie was set");
  return set.split(";")[0]!;
}

/** A signed-up user in a browser (sign up, then sign in, as the form does): same-origin requests with their session cookie. */
export async function browser(db: Db, email: string, limits?: CallerOptions["limits"], portal?: CallerOptions["portal"]) {
  const anon = await caller(db, { headers: { origin: ORIGIN }, portal });
  await anon.api.auth.signUp({ email, password: "correct horse battery" });
  const user = await anon.api.auth.signIn({ email, password: "correct horse battery" });
  const cookie = cookieFrom(anon.resHeaders);
  const { api } = await caller(db, { headers: { origin: ORIGIN, cookie }, limits, portal });
  return { api, user, cookie };
}

/** A CLI with an API token: no Origin, no cookie. */
export async function cli(db: Db, token: string, limits?: CallerOptions["limits"]) {
  return (await caller(db, { headers: { authorization: `Bearer ${token}` }, limits })).api;
}

/** Awaits a call expected to fail; returns its TRPCError after checking the code. */
export async function failure(promise: Promise<unknown>, code: TRPCError["code"]): Promise<TRPCError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error, "the call should have failed").toBeInstanceOf(TRPCError);
  expect((error as TRPCError).code, (error as TRPCError).message).toBe(code);
  return error as TRPCError;
}

/** The fields a failed call names ({field: [message]}). */
export function fields(error: TRPCError): Record<string, string[]> {
  return issuesToFields(error.cause) ?? {};
}
