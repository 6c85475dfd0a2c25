/**
 * Input validation with the zod schemas of @sfbench/core: a failure becomes
 * 400 `{"error": "bad-request", "message": "<field>: <problem>"}`.
 */
import { describeZodError, Id } from "@sfbench/core";
import { BadRequest } from "./errors.ts";

type ZodError = Parameters<typeof describeZodError>[0];
interface Schema<T> {
  safeParse(value: unknown): { success: true; data: T } | { success: false; error: ZodError };
}

/** A path parameter that names an entity: 1-128 characters, no NUL (PostgreSQL text cannot hold one). */
export function parseId(value: unknown, field = "id"): string {
  const result = Id.safeParse(value);
  if (!result.success) throw new BadRequest(`${field}: ${result.error.issues.map((i) => i.message).join("; ")}`);
  return result.data;
}

/**
 * A JSON body (or query). `missing` is what an absent body means: {} for the
 * routes whose fields are all optional, undefined (an error) for the others.
 */
export function parseInput<T>(schema: Schema<T>, value: unknown, missing?: object): T {
  const result = schema.safeParse(value === undefined ? missing : value);
  if (!result.success) throw new BadRequest(describeZodError(result.error));
  return result.data;
}
