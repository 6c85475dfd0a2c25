/**
 * SPEC 8 microbenchmark routes on the target as sfbench starts it (provider-local,
 * two cluster members): the largest requests SPEC 8 allows, which must answer
 * before the target's no-answer deadline (the conformance suite's micro group
 * is @sfbench/target-suite's check).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { nodeLogs, startTarget, stopTarget, type StartedTarget } from "@sfbench/provider-local";
import { call, largestMicroRequests, withOutputOnFailure } from "@sfbench/target-suite";
import { TARGET } from "./helpers.ts";

const PORT = 18806;
let target: StartedTarget;

beforeAll(async () => {
  await stopTarget(TARGET);
  target = await startTarget(TARGET, { port: PORT });
});

afterAll(async () => {
  await stopTarget(TARGET);
});

async function ok(method: string, path: string, body?: unknown): Promise<Record<string, unknown>> {
  const answer = await call(target.url, method, path, body);
  if (answer.status !== 200) throw new Error(`${method} ${path} -> ${answer.status} ${answer.text}`);
  return answer.body as Record<string, unknown>;
}

describe("protoactor-go micro routes (SPEC 8)", () => {
  // a 504 here means a lost message, a dead member or an entity that left its round: the members' own logs say which, and the next start of the target empties them
  it("answers the largest requests the spec allows, within their no-answer deadline", () =>
    withOutputOnFailure(
      () => [target.log, ...nodeLogs(TARGET)],
      async () => {
        for (const r of largestMicroRequests()) expect(await ok("POST", r.path, r.body)).toMatchObject(r.expected);
      },
    ));
});
