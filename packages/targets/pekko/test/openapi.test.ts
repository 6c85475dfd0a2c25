/**
 * docs/openapi.json and pekko agree: schemathesis (pinned, from PyPI,
 * installed by @sfbench/services) generates valid and invalid requests from
 * the document and checks every answer with all its checks but the
 * documented exclusions (docs/conformance.md).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runSchemathesis, SCHEMATHESIS_EXCLUSIONS } from "@sfbench/conformance";
import { startTarget, stopTarget, type StartedTarget } from "@sfbench/provider-local";
import { schemathesisPath } from "@sfbench/services";
import { TARGET } from "./helpers.ts";

const PORT = 18921;
let target: StartedTarget;
let bin: string;

beforeAll(async () => {
  bin = await schemathesisPath({ onProgress: (m) => process.stderr.write(`schemathesis: ${m}\n`) });
  await stopTarget(TARGET);
  target = await startTarget(TARGET, { port: PORT });
}, 900_000);

afterAll(async () => {
  await stopTarget(TARGET);
});

describe("docs/openapi.json against pekko", () => {
  it("schemathesis --checks all finds no failure except the documented exclusions", async () => {
    const outcome = await runSchemathesis({ bin, url: target.url, maxExamples: 20 });
    expect(outcome.args).toEqual(expect.arrayContaining(["--checks", "all", "--exclude-checks", SCHEMATHESIS_EXCLUSIONS.map((e) => e.check).join(",")]));
    expect(outcome.failures, outcome.report).toEqual([]);
    expect(outcome.passed).toBe(true);
  }, 600_000);
});
