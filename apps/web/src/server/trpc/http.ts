/** tRPC over HTTP (fetch adapter): the handler behind /api/trpc, also called directly by tests. */
import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import type { Db } from "@sfbench/db";
import { getDb } from "../db.ts";
import { appRouter } from "../routers/app.ts";
import { createContext, type Context } from "./context.ts";
import { RetryAfterCause } from "./errors.ts";

export const TRPC_ENDPOINT = "/api/trpc";

export interface HandlerOptions {
  db?: Db;
  limits?: Partial<Context["limits"]>;
}

export function handleTrpc(req: Request, opts: HandlerOptions = {}): Promise<Response> {
  return fetchRequestHandler({
    endpoint: TRPC_ENDPOINT,
    req,
    router: appRouter,
    createContext: async ({ req, resHeaders }) => createContext({ db: opts.db ?? (await getDb()), req, resHeaders, limits: opts.limits }),
    // a refused request (429) says when to retry: the longest wait of the batch
    responseMeta: ({ errors }) => {
      const waits = errors.flatMap((e) => (e.cause instanceof RetryAfterCause ? [e.cause.retryAfterSeconds()] : []));
      return waits.length ? { headers: { "retry-after": String(Math.max(...waits)) } } : {};
    },
    onError: ({ error, path }) => {
      if (error.code === "INTERNAL_SERVER_ERROR") console.error(`tRPC ${path ?? "?"} failed:`, error.cause ?? error);
    },
  });
}
