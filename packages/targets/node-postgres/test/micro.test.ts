/**
 * SPEC 8 on the baseline: the whole conformance suite with the micro group
 * (target.json declares micro), against the target on a real loopback port
 * and a real PostgreSQL; then what a message is here, seen in the database.
 */
import { readFileSync } from "node:fs";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { formatFailure, runConformance } from "@sfbench/conformance";
import { parseManifestText } from "@sfbench/core";
import { startTarget, testDatabase, type RunningTarget } from "./helpers.ts";

let t: RunningTarget;

beforeAll(async () => {
  t = await startTarget(await testDatabase("micro"));
});
afterAll(async () => {
  await t?.close();
});

describe("microbenchmarks (SPEC 8)", () => {
  it("are declared in target.json", () => {
    const result = parseManifestText(readFileSync(new URL("../target.json", import.meta.url), "utf8"));
    expect(result.ok && result.manifest.micro).toBe(true);
  });

  it("pass every check of the conformance suite, the micro group included", { timeout: 600_000 }, async () => {
    const report = await runConformance(t.url, { micro: true, quietMs: 5000 });
    const failures = report.checks.filter((c) => !c.passed).map(formatFailure);
    expect(failures, failures.join("\n\n")).toEqual([]);
    expect(report.checks.filter((c) => c.group === "micro").length).toBeGreaterThan(40);
    expect(report.passed).toBeGreaterThan(160);
  });

  it("stores the io payload in PostgreSQL and leaves no entity rows behind a messaging request", async () => {
    const io = await t.call("POST", "/micro/io", { key: "np-micro-io", bytes: 30 });
    expect(io.status).toBe(200);
    const big = await t.call("POST", "/micro/big", { entities: 5, messages: 50, seed: 1 });
    expect(big.body).toMatchObject({ delivered: 50 });
    const db = new pg.Client({ connectionString: t.databaseUrl });
    await db.connect();
    try {
      const { rows } = await db.query<{ payload: Buffer }>("SELECT payload FROM micro_io WHERE key = 'np-micro-io'");
      expect(rows[0]!.payload.toString("latin1")).toBe("abcdefghijklmnopqrstuvwxyzabcd");
      const left = await db.query<{ n: number }>("SELECT count(*)::int AS n FROM micro_entities");
      expect(left.rows[0]!.n).toBe(0);
    } finally {
      await db.end();
    }
  });
});

describe("GET /micro/sleep", () => {
  it("never reports less than the asked time, even for a timer that fires early on the loop's cached clock", async () => {
    const answers = await Promise.all(Array.from({ length: 40 }, (_, i) => t.call("GET", `/micro/sleep?ms=${1 + (i % 7)}`)));
    answers.forEach((a, i) => {
      expect(a.status).toBe(200);
      const asked = 1 + (i % 7);
      expect((a.body as { handlerNs: number }).handlerNs, `sleep of ${asked} ms`).toBeGreaterThanOrEqual(asked * 1e6);
    });
  });
});
