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
