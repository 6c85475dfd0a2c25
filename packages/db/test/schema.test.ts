import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { DISTRIBUTIONS, Environment, ResultDocument, WORKLOADS } from "@sfbench/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { diffMigrationsToSchema } from "../scripts/schema-diff.ts";
import { createDb, Distribution, EnvironmentKind, migrate, Profile, RunStatus, schemaPath, Workload, type Db } from "../src/index.ts";
import { sql, testDatabase, type TestDatabase } from "./helpers.ts";

let test: TestDatabase;
let db: Db;
beforeAll(async () => {
  test = await testDatabase();
  await migrate(test.url);
  db = createDb(test.url);
});
afterAll(async () => {
  await db?.$disconnect();
  await test?.drop();
});

describe("schema", () => {
  it("the migrations build exactly what prisma/schema.prisma describes", async () => {
    // Prisma's schema engine replays prisma/migrations in a shadow database and diffs it with the schema.
    expect(await diffMigrationsToSchema({ url: test.url })).toBe("");
  });

  it("the same check notices a field that no migration adds", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "sfbench-schema-"));
    try {
      const changed = path.join(dir, "schema.prisma");
      const schema = await readFile(schemaPath, "utf8");
      await writeFile(changed, schema.replace(/^model Rating \{\n/m, "model Rating {\n  helpful Int @default(0)\n"));
      expect(await diffMigrationsToSchema({ url: test.url, schemaPath: changed })).toMatch(
        /ALTER TABLE "Rating" ADD COLUMN\s+"helpful" INTEGER NOT NULL DEFAULT 0/,
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("every model can be written and read back through the client", async () => {
    const user = await db.user.create({ data: { email: "ada@example.org", passwordHash: "argon2id$..." } });
    await db.session.create({ data: { tokenHash: "s".repeat(64), userId: user.id, expiresAt: new Date(Date.now() + 3_600_000) } });
    await db.apiToken.create({ data: { name: "laptop", tokenHash: "t".repeat(64), prefix: "sfb_abcd", userId: user.id } });
    const system = await db.system.create({ data: { slug: "restate", name: "Restate", ownerId: user.id, repository: "https://github.com/x/y" } });
    const version = await db.targetVersion.create({
      data: {
        systemId: system.id,
        version: "1.0.0",
        manifestDigest: `sha256:${"b".repeat(64)}`,
        manifest: { name: "restate" },
        loc: { typescript: { app: 420, gateway: 80 } },
      },
    });
    const run = await db.run.create({
      data: {
        systemId: system.id,
        targetVersionId: version.id,
        status: RunStatus.needs_cluster,
        environmentKind: EnvironmentKind.kubernetes,
        nodes: 3,
        profile: Profile.standard,
        seed: 2n ** 40n,
        submittedById: user.id,
      },
    });
    await db.runDocument.create({ data: { runId: run.id, digest: "sha256:x", document: { any: ["json", 1, null] } } });
    await db.cellResult.create({
      data: {
        runId: run.id,
        workload: Workload.contention,
        distribution: Distribution.zipf,
        seed: 7n,
        parameters: {},
        valid: true,
        peakRssBytes: 9_000_000_000n,
        series: [],
        histograms: { steps: [] },
        p99: 12.5,
      },
    });
    await db.rating.create({ data: { userId: user.id, systemId: system.id, programmingModel: 4, understandability: 5, comment: "clear" } });

    const read = await db.system.findUniqueOrThrow({
      where: { slug: "restate" },
      include: { owner: { include: { sessions: true, apiTokens: true } }, versions: true, ratings: true, runs: { include: { cells: true, document: true } } },
    });
    expect(read.owner?.sessions).toHaveLength(1);
    expect(read.owner?.apiTokens[0]?.revokedAt).toBeNull();
    expect(read.versions[0]?.loc).toEqual({ typescript: { app: 420, gateway: 80 } });
    expect(read.ratings[0]).toMatchObject({ programmingModel: 4, understandability: 5 });
    const [readRun] = read.runs;
    expect(readRun).toMatchObject({ status: "needs_cluster", progress: 0, parameters: {}, seed: 2n ** 40n });
    expect(readRun?.document?.document).toEqual({ any: ["json", 1, null] });
    expect(readRun?.cells[0]).toMatchObject({ peakRssBytes: 9_000_000_000n, p99: 12.5, sustainableRate: null, steps: [] });
    // the enum's database value is the one in the issue
    expect(await sql(test.url, `SELECT status::text FROM "Run"`)).toEqual([{ status: "needs-cluster" }]);
  });

  it("rejects ratings outside 1-5 and progress outside 0-100 in the database itself", async () => {
    const [user, system] = await Promise.all([
      db.user.create({ data: { email: "bob@example.org", passwordHash: "x" } }),
      db.system.create({ data: { slug: "dapr", name: "Dapr actors" } }),
    ]);
    await expect(db.rating.create({ data: { userId: user.id, systemId: system.id, programmingModel: 6, understandability: 3 } })).rejects.toThrow(
      /Rating_programmingModel_check/,
    );
    const version = await db.targetVersion.create({ data: { systemId: system.id, version: "0.1.0", manifestDigest: `sha256:${"c".repeat(64)}` } });
    await expect(
      db.run.create({ data: { systemId: system.id, targetVersionId: version.id, environmentKind: "local", nodes: 1, profile: "quick", progress: 101 } }),
    ).rejects.toThrow(/Run_progress_check/);
  });

  it("keeps Run.systemId equal to its target version's system", async () => {
    const [a, b] = await Promise.all([db.system.create({ data: { slug: "a", name: "A" } }), db.system.create({ data: { slug: "b", name: "B" } })]);
    const version = await db.targetVersion.create({ data: { systemId: a.id, version: "0.1.0", manifestDigest: `sha256:${"d".repeat(64)}` } });
    await expect(
      db.run.create({ data: { systemId: b.id, targetVersionId: version.id, environmentKind: "local", nodes: 1, profile: "quick" } }),
    ).rejects.toThrow(/Run_targetVersionId_systemId_fkey|Foreign key constraint/);
  });

  it("has the workload, distribution, environment and profile values of the result document", () => {
    expect(Object.values(Workload)).toEqual([...WORKLOADS]);
    expect(Object.values(Distribution)).toEqual([...DISTRIBUTIONS]);
    expect(Object.values(EnvironmentKind)).toEqual(Environment.shape.kind.options);
    expect(Object.values(Profile)).toEqual(ResultDocument.shape.profile.options);
  });
});
