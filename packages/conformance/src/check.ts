/**
 * Checks: named, independent assertions about a target. A check passes when
 * its function returns and fails when it throws; the failure keeps the
 * message and the last HTTP exchange, so the report shows what went wrong.
 */
import type { z } from "zod";
import { ErrorBody } from "@sfbench/core";
import type { Client, Exchange, Response } from "./client.ts";

export interface CheckResult {
  id: string;
  group: string;
  title: string;
  passed: boolean;
  ms: number;
  message?: string;
  exchange?: Exchange;
}

export class CheckFailed extends Error {
  constructor(
    message: string,
    readonly exchange?: Exchange,
  ) {
    super(message);
  }
}

export interface Check {
  id: string;
  title: string;
  run: (c: Client) => Promise<void>;
}

export function fail(message: string, exchange?: Exchange): never {
  throw new CheckFailed(message, exchange);
}

const show = (v: unknown) => {
  const s = typeof v === "string" ? v : JSON.stringify(v);
  return s.length > 200 ? s.slice(0, 200) + "..." : s;
};

/** Asserts the status (one or several allowed) and returns the response. */
export function expectStatus<T>(res: Response<T>, allowed: number | number[], what = "status"): Response<T> {
  const list = Array.isArray(allowed) ? allowed : [allowed];
  if (!list.includes(res.status)) fail(`${what}: expected ${list.join(" or ")}, got ${res.status} ${show(res.text)}`);
  return res;
}

/** Asserts a JSON body of the given shape and returns it typed. */
export function expectShape<S extends z.ZodType>(res: Response, schema: S, what = "body"): z.infer<S> {
  const r = schema.safeParse(res.json);
  if (!r.success) {
    const issue = r.error.issues[0];
    fail(
      `${what}: ${res.json === undefined ? "not JSON" : "wrong shape"} (${issue ? `${issue.path.join(".") || "body"}: ${issue.message}` : ""}): ${show(res.text)}`,
    );
  }
  return r.data;
}

/** Asserts an error answer: the status and a `{error, message}` body, optionally with a given code. */
export function expectError(res: Response, status: number | number[], code?: string): void {
  expectStatus(res, status);
  const body = expectShape(res, ErrorBody, "error body {error, message}");
  if (code && body.error !== code) fail(`error code: expected "${code}", got "${body.error}"`);
}

export function expectEqual<T>(actual: T, expected: T, what: string): void {
  if (JSON.stringify(actual) !== JSON.stringify(expected)) fail(`${what}: expected ${show(expected)}, got ${show(actual)}`);
}

/** Compares two id sets regardless of order. */
export function expectSet(actual: readonly string[], expected: readonly string[], what: string, names?: Map<string, string>): void {
  const label = (ids: readonly string[]) =>
    [...ids]
      .map((id) => names?.get(id) ?? id)
      .sort()
      .join(", ");
  const a = [...new Set(actual)].sort();
  const e = [...new Set(expected)].sort();
  if (a.length !== actual.length) fail(`${what}: duplicates in answer {${label(actual)}}`);
  if (JSON.stringify(a) !== JSON.stringify(e)) fail(`${what}: expected {${label(expected)}}, got {${label(actual)}}`);
}

export async function runCheck(group: string, check: Check, client: Client): Promise<CheckResult> {
  client.reset();
  const started = performance.now();
  try {
    await check.run(client);
    return { id: `${group}.${check.id}`, group, title: check.title, passed: true, ms: performance.now() - started };
  } catch (e) {
    const exchange = e instanceof CheckFailed && e.exchange ? e.exchange : client.last();
    return {
      id: `${group}.${check.id}`,
      group,
      title: check.title,
      passed: false,
      ms: performance.now() - started,
      message: (e as Error).message,
      exchange,
    };
  }
}
