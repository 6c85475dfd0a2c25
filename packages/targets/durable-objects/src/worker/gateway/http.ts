/**
 * HTTP plumbing of the gateway: JSON answers, the `{"error", "message"}`
 * shape of every error (SPEC 2), bodies, path ids and validation with the
 * zod schemas of @sfbench/core.
 */
import { describeZodError, Id } from "@sfbench/core/api";
import type { Failure, Outcome } from "../app/env.ts";

/** An error the gateway answers itself (bad input, unknown route, body too large). */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export const badRequest = (message: string) => new HttpError(400, "bad-request", message);

const JSON_TYPE = { "content-type": "application/json; charset=utf-8" };

export function json(value: unknown, status = 200): Response {
  return new Response(JSON.stringify(value), { status, headers: JSON_TYPE });
}

/** 200 without a body (adding credits, adding to a cart). */
export const empty = (): Response => new Response(null, { status: 200 });

export function errorResponse(status: number, error: string, message: string): Response {
  return json({ error, message }, status);
}

const FAILURE_STATUS: Record<Failure, number> = {
  "not-found": 404,
  "too-large": 400,
  "empty-cart": 409,
  "cart-checked-out": 409,
  "insufficient-stock": 409,
  "insufficient-credits": 409,
  // only after a system failure: recovery gave the order up while this call was still on its way
  aborted: 500,
};

const FAILURE_CODE: Partial<Record<Failure, string>> = { "too-large": "bad-request", aborted: "internal" };

/** The value of a successful outcome, or the HTTP error of a business failure. */
export function unwrap<T>(outcome: Outcome<T>): T {
  if (outcome.ok) return outcome.value;
  throw new HttpError(FAILURE_STATUS[outcome.error], FAILURE_CODE[outcome.error] ?? outcome.error, outcome.message);
}

export function notFound(what: string): never {
  throw new HttpError(404, "not-found", `${what} does not exist`);
}

const MAX_BODY = 1 << 20;

/**
 * The JSON body, whatever the content-type says; undefined when there is
 * none. Malformed JSON is 400, more than 1 MiB is 413.
 */
export async function readJson(request: Request): Promise<unknown> {
  const declared = Number(request.headers.get("content-length") ?? "0");
  if (declared > MAX_BODY) throw new HttpError(413, "payload-too-large", `body: at most ${MAX_BODY} bytes`);
  const text = await request.text();
  if (text.length > MAX_BODY) throw new HttpError(413, "payload-too-large", `body: at most ${MAX_BODY} bytes`);
  if (text.trim() === "") return undefined;
  try {
    return JSON.parse(text);
  } catch (e) {
    throw badRequest(`body: not valid JSON (${(e as Error).message})`);
  }
}

interface Schema<T> {
  safeParse(value: unknown): { success: true; data: T } | { success: false; error: Parameters<typeof describeZodError>[0] };
}

/** A body or query through its schema; `missing` is what an absent body means ({} where every field is optional). */
export function parse<T>(schema: Schema<T>, value: unknown, missing?: object): T {
  const result = schema.safeParse(value === undefined ? missing : value);
  if (!result.success) throw badRequest(describeZodError(result.error));
  return result.data;
}

/** A decoded path segment naming an entity: 1-128 characters. */
export function pathId(segment: string, field = "id"): string {
  let id: string;
  try {
    id = decodeURIComponent(segment);
  } catch {
    throw badRequest(`${field}: not a valid percent-encoded path segment`);
  }
  const result = Id.safeParse(id);
  if (!result.success) throw badRequest(`${field}: ${result.error.issues.map((i) => i.message).join("; ")}`);
  return result.data;
}
