/**
 * Errors that name the field: `fieldError("email", "...")` for a problem the
 * code finds, and the issues of a failed zod (standard schema) input parse,
 * become `data.fields` ({field: [message]}) and a readable message.
 */
import { TRPCError } from "@trpc/server";

export type FieldErrors = Record<string, string[]>;

/** Carried as the TRPCError's cause so the error formatter can find the fields. */
export class FieldErrorsCause extends Error {
  constructor(readonly fields: FieldErrors) {
    super(summarize(fields));
  }
}

export function summarize(fields: FieldErrors): string {
  return Object.entries(fields)
    .map(([field, messages]) => `${field}: ${messages.join("; ")}`)
    .join("\n");
}

export function fieldErrors(fields: FieldErrors, code: "BAD_REQUEST" | "FORBIDDEN" | "CONFLICT" = "BAD_REQUEST"): TRPCError {
  const cause = new FieldErrorsCause(fields);
  return new TRPCError({ code, message: cause.message, cause });
}

export function fieldError(field: string, message: string, code?: "BAD_REQUEST" | "FORBIDDEN" | "CONFLICT"): TRPCError {
  return fieldErrors({ [field]: [message] }, code);
}

/** Carried as the cause of a 429 so that the HTTP handler can send Retry-After and the error body can say when. */
export class RetryAfterCause extends Error {
  constructor(
    readonly retryAt: Date,
    message: string,
  ) {
    super(message);
  }
  /** whole seconds from now, at least 1 */
  retryAfterSeconds(now = new Date()): number {
    return Math.max(1, Math.ceil((this.retryAt.getTime() - now.getTime()) / 1000));
  }
}

/** "try again in 14 minutes (at 09:31:05 UTC)": when a refused request may be retried. */
export function retryText(retryAt: Date, now = new Date()): string {
  const seconds = Math.max(1, Math.ceil((retryAt.getTime() - now.getTime()) / 1000));
  const wait = seconds < 120 ? `${seconds} second${seconds === 1 ? "" : "s"}` : `${Math.ceil(seconds / 60)} minutes`;
  return `try again in ${wait} (at ${retryAt.toISOString().slice(11, 19)} UTC)`;
}

/** A 429: `message` says what was refused and why; the time to retry is appended, and sent as Retry-After. */
export function tooManyRequests(message: string, retryAt: Date, now = new Date()): TRPCError {
  const full = `${message}: ${retryText(retryAt, now)}`;
  return new TRPCError({ code: "TOO_MANY_REQUESTS", message: full, cause: new RetryAfterCause(retryAt, full) });
}

interface Issue {
  path?: ReadonlyArray<PropertyKey | { key: PropertyKey }>;
  message: string;
}

/** The fields of a validation failure (ZodError or a standard-schema error), or undefined. */
export function issuesToFields(cause: unknown): FieldErrors | undefined {
  if (cause instanceof FieldErrorsCause) return cause.fields;
  const issues = (cause as { issues?: unknown } | undefined)?.issues;
  if (!Array.isArray(issues)) return undefined;
  const fields: FieldErrors = {};
  for (const issue of issues as Issue[]) {
    const path = (issue.path ?? []).map((p) => String(typeof p === "object" ? p.key : p)).join(".") || "input";
    (fields[path] ??= []).push(issue.message);
  }
  return fields;
}
