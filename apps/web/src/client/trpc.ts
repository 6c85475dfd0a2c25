"use client";
/** tRPC for client components (TanStack Query integration): useTRPC() gives queryOptions/mutationOptions. */
import type { TRPCClientErrorLike } from "@trpc/client";
import { createTRPCContext } from "@trpc/tanstack-react-query";
import type { AppRouter } from "../server/routers/app.ts";

export const { TRPCProvider, useTRPC, useTRPCClient } = createTRPCContext<AppRouter>();

export type ApiError = TRPCClientErrorLike<AppRouter>;

/** The field errors of a failed call ({field: [message]}), or {} */
export function fieldsOf(error: unknown): Record<string, string[]> {
  const data = (error as { data?: { fields?: Record<string, string[]> | null } } | null)?.data;
  return data?.fields ?? {};
}

/** A failed call's message, for the places that show one line. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
