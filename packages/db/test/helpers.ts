/** Test fixtures: a fresh database per test file on the local PostgreSQL, and result documents. */
import { randomBytes, randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { manifestDigest, parseManifest, RESULT_SCHEMA_VERSION, type ResultDocumentInput, type TargetManifest } from "@sfbench/core";
import { createDatabase, postgresUrl, up } from "@sfbench/services";
import pg from "pg";

export interface TestDatabase {
  name: string;
  url: string;
  drop(): Promise<void>;
}

/** A new, empty database `test_db_<random>`; drop() removes it (WITH FORCE). */
export async function testDatabase(): Promise<TestDatabase> {
  await up(["postgres"]);
  const name = `test_db_${randomBytes(5).toString("hex")}`;
  const url = await createDatabase(name);
  return { name, url, drop: () => sql(postgresUrl(), `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`).then(() => undefined) };
}

/** One statement on a short-lived connection. */
export async function sql<R extends pg.QueryResultRow = Record<string, unknown>>(url: string, text: string, values: unknown[] = []): Promise<R[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<R>(text, values)).rows;
  } finally {
    await client.end();
  }
}

/** The bundled node-postgres target.json, parsed, and its digest. */
export function nodePostgresManifest(): { manifest: TargetManifest; digest: string } {
  const file = fileURLToPath(new URL("../../targets/node-postgres/target.json", import.meta.url));
  const parsed = parseManifest(JSON.parse(readFileSync(file, "utf8")));
  if (!parsed.ok) throw new Error(parsed.errors.join("\n"));
  return { manifest: parsed.manifest, digest: manifestDigest(parsed.manifest) };
}

const stats = { count: 10, mean: 5, p50: 4, p95: 9, p99: 10, p999: 10, max: 10, min: 1 };
const HISTOGRAM = "HISTFAAAACl4nJNpmSzMwMDAxsDAwMjAwMDMAAEgNgPz5HYGGP88P9NZfiYAVIQELg==";

/** A valid completed result document (parseResult accepts it) with two cells; a new object every call. */
export function resultDoc(overrides: Partial<ResultDocumentInput> = {}): ResultDocumentInput {
  const runId = overrides.runId ?? randomUUID();
  // through JSON: no object shared between two places (structuredClone would keep `stats` shared)
  return JSON.parse(
    JSON.stringify({
      schemaVersion: RESULT_SCHEMA_VERSION,
      runId,
      status: "completed",
      target: { name: "node-postgres", version: "0.1.0", system: "Node.js + PostgreSQL", manifestDigest: nodePostgresManifest().digest },
      environment: {
        kind: "local",
        nodes: 1,
        cpuModel: "AMD EPYC",
        cores: 8,
        memoryBytes: 16e9,
        os: "Linux 6.1",
        node: "v20.19.0",
        k6Version: "v1.8.1",
        gitSha: "b973eae",
        cpuSplit: { generator: "0-1", target: "2-7" },
      },
      startedAt: "2026-11-22T06:00:00.000Z",
      finishedAt: "2026-11-22T06:10:00.000Z",
      profile: "quick",
      cells: [
        {
          workload: "checkout",
          distribution: "zipf",
          parameters: { products: 5000, zipfExponent: 1.25, cartSize: [2, 8] },
          seed: 42,
          maxThroughput: {
            maxMovingAvg10s: 812.4,
            sustainableRate: 800,
            steps: [
              {
                scenario: "step_0",
                offeredRate: 800,
                durationS: 30,
                achievedRate: 799.5,
                completedShare: 0.999,
                errorRate: 0,
                droppedIterations: 0,
                latency: stats,
                histogram: HISTOGRAM,
              },
              {
                scenario: "step_1",
                offeredRate: 1600,
                durationS: 30,
                achievedRate: 900,
                completedShare: 0.56,
                errorRate: 0.2,
                droppedIterations: 900,
                latency: stats,
                failedBecause: ["completed 56% of the offered rate (< 95%)"],
              },
            ],
          },
          stable: {
            offeredRate: 640,
            durationS: 60,
            achievedRate: 639.9,
            errorRate: 0.001,
            latency: stats,
            byCartSize: { "2": { requests: 10, successful: 9, rejected: 1, errors: 0, latency: stats, histogram: HISTOGRAM } },
            histogram: HISTOGRAM,
          },
          series: [
            { t: 0, offered: 800, successful: 790, rejected: 1, errors: 0, dropped: 0, p50: 4.2, p99: 12.5 },
            { t: 1, successful: 0, rejected: 0, errors: 0, dropped: 0, p50: null, p99: null },
          ],
          cost: {
            coreSecondsPer1000: 1.5,
            throughputPerCore: 120.5,
            peakRssBytes: 6_000_000_000,
            targetCpuSeconds: 300,
            generatorCpuSeconds: 40,
            generatorCpuShare: 0.3,
          },
          anomalies: { kinds: { "negative-stock": 0, "lost-update": 2 }, total: 2 },
          valid: true,
        },
        {
          workload: "analytics",
          distribution: "uniform",
          parameters: { top: 10, depth: 2 },
          seed: 42,
          series: [],
          valid: false,
          invalidReason: "the load generator was the bottleneck",
        },
      ],
      rawData: { dir: `.sfbench/runs/${runId}`, files: ["checkout-zipf.csv.gz"] },
      ...overrides,
    } satisfies ResultDocumentInput),
  ) as ResultDocumentInput;
}

/** A failed run's document: error and stage, no cells. */
export function failedDoc(overrides: Partial<ResultDocumentInput> = {}): ResultDocumentInput {
  return resultDoc({ status: "failed", error: { stage: "verify", message: "12 of 116 conformance checks failed" }, cells: [], ...overrides });
}
