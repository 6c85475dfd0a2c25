/**
 * docs/openapi.json and node-postgres agree: schemathesis (pinned, from PyPI,
 * installed by @sfbench/services) generates requests from the document,
 * valid and invalid, and checks every answer with all its checks but the
 * documented exclusions (docs/conformance.md).
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildOpenApi } from "@sfbench/core/openapi";
import { runSchemathesis, SCHEMATHESIS_EXCLUSIONS } from "@sfbench/conformance";
import { schemathesisPath } from "@sfbench/services";
import { startTarget, testDatabase, type RunningTarget } from "./helpers.ts";

let t: RunningTarget;
let bin: string;

beforeAll(async () => {
  bin = await schemathesisPath({ onProgress: (m) => process.stderr.write(`schemathesis: ${m}\n`) });
  t = await startTarget(await testDatabase("openapi"), { logLevel: "silent" });
}, 600_000);
afterAll(async () => {
  await t?.close();
});

describe("docs/openapi.json against node-postgres", () => {
  it("schemathesis --checks all finds no failure except the documented exclusions", async () => {
    const outcome = await runSchemathesis({ bin, url: t.url, maxExamples: 20 });
    expect(outcome.args).toEqual(expect.arrayContaining(["--checks", "all", "--exclude-checks", SCHEMATHESIS_EXCLUSIONS.map((e) => e.check).join(",")]));
    expect(outcome.failures, outcome.report).toEqual([]);
    expect(outcome.passed).toBe(true);
  }, 300_000);

  it("notices when the document and the behaviour disagree (a document that lists no 400 for GET by id)", async () => {
    // the document as it was before ids over 128 characters were documented as 400, cut to those routes
    const doc = buildOpenApi() as { paths: Record<string, Record<string, { responses: Record<string, unknown> }>> };
    const byId = ["/products/{id}", "/users/{id}", "/shopping-carts/{id}", "/orders/{id}"];
    doc.paths = Object.fromEntries(byId.map((path) => [path, { get: doc.paths[path]!.get! }]));
    for (const path of byId) delete doc.paths[path]!.get!.responses["400"];
    const file = join(mkdtempSync(join(tmpdir(), "sfbench-openapi-")), "openapi.json");
    writeFileSync(file, JSON.stringify(doc));
    const outcome = await runSchemathesis({ bin, url: t.url, openapi: file, maxExamples: 5 });
    expect(outcome.passed).toBe(false);
    expect(outcome.failures.join("\n")).toMatch(/ST103 Undocumented status code: \d+/);
    expect(outcome.report).toMatch(/GET \/(products|users|shopping-carts|orders)\/\{id\}/);
  }, 300_000);
});
