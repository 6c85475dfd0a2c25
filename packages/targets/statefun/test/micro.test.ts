/**
 * SPEC 8 microbenchmark routes on the target as sfbench starts it (provider-local:
 * gateway, Kafka ingress and egress, the StateFun job): the largest requests
 * SPEC 8 allows, which must answer before the target's no-answer deadline
 * (the conformance suite's micro group is @sfbench/target-suite's check).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTarget, stopTarget, type StartedTarget } from "@sfbench/provider-local";
import { call, largestMicroRequests } from "@sfbench/target-suite";
import { TARGET } from "./helpers.ts";

let target: StartedTarget;

beforeAll(async () => {
  await stopTarget(TARGET);
  target = await startTarget(TARGET, { port: "free" });
});

afterAll(async () => {
  await stopTarget(TARGET);
});

async function ok(method: string, path: string, body?: unknown): Promise<Record<string, unknown>> {
  const answer = await call(target.url, method, path, body);
  if (answer.status !== 200) throw new Error(`${method} ${path} -> ${answer.status} ${answer.text}`);
  return answer.body as Record<string, unknown>;
}

describe("statefun micro routes (SPEC 8)", () => {
  it("answers the largest requests the spec allows, within their no-answer deadline", async () => {
    for (const r of largestMicroRequests()) expect(await ok("POST", r.path, r.body)).toMatchObject(r.expected);
  });
});
