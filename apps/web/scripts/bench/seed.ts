/**
 * Bulk seeding for the portal benchmark: a handful of fixture result
 * documents are imported the normal way (importResult), then cloned in SQL
 * into N systems x M runs (Systems, TargetVersions with LOC, Runs with one
 * failed run in four, CellResults with the numbers scaled per run,
 * RunDocuments, users and ratings), a few statements in all.
 */
import { importResult, type Db } from "@sfbench/db";
import { fixtureManifest } from "../../fixtures/manifest.ts";
import { fixtureFailedResult, fixtureResult } from "../../fixtures/result-doc.ts";

const TEMPLATES = 8;

export interface SeedOptions {
  systems: number;
  runsPerSystem: number;
  raters?: number;
}

export interface Seeded {
  systems: number;
  runs: number;
  cells: number;
  documents: number;
  ratings: number;
  ms: number;
}

async function importTemplates(db: Db): Promise<{ completed: string[]; failed: string }> {
  const completed: string[] = [];
  let failed = "";
  for (let i = 0; i <= TEMPLATES; i++) {
    const name = `template-${i}`;
    const { manifest, digest } = fixtureManifest(name);
    const target = { name, system: manifest.system, version: manifest.version, manifestDigest: digest };
    const doc =
      i < TEMPLATES ? fixtureResult({ target, seed: 100 + i, size: "small", capacity: 300 + i * 250 }) : fixtureFailedResult({ target, seed: 100 + i });
    await importResult(db, doc, { manifest });
    if (i < TEMPLATES) completed.push(doc.runId);
    else failed = doc.runId;
  }
  return { completed, failed };
}

export async function seed(db: Db, opts: SeedOptions): Promise<Seeded> {
  const started = performance.now();
  const { completed, failed } = await importTemplates(db);
  const manifest = JSON.stringify(fixtureManifest("system-0").manifest);
  const n = opts.systems;
  const m = opts.runsPerSystem;
  const template = (slug: string) => `(${"$1"}::uuid[])[1 + abs(hashtext(${slug})) % ${TEMPLATES}]`;
  await db.$transaction(
    async (tx) => {
      await tx.$executeRawUnsafe(
        `INSERT INTO "System" (id, slug, name, description, repository, "updatedAt")
         SELECT gen_random_uuid(), format('system-%s', lpad(i::text, 5, '0')), format('System %s', i),
                'A generated system for the portal benchmark.', format('https://example.com/system-%s', i), now()
         FROM generate_series(1, $1::int) i`,
        n,
      );
      await tx.$executeRawUnsafe(
        `INSERT INTO "TargetVersion" (id, "systemId", version, manifest, "manifestDigest", loc)
         SELECT gen_random_uuid(), s.id, '0.1.0', jsonb_set($1::jsonb, '{name}', to_jsonb(s.slug)),
                'sha256:' || encode(sha256(convert_to(s.slug, 'UTF8')), 'hex'),
                jsonb_build_object('typescript', jsonb_build_object('app', 300 + (abs(hashtext(s.slug)) % 2000), 'gateway', 40 + (abs(hashtext(s.slug || 'g')) % 400)))
         FROM "System" s WHERE s.slug LIKE 'system-%'`,
        manifest,
      );
      // run k of m: the last one on 2 nodes, every fourth (but not the latest two) failed
      await tx.$executeRawUnsafe(
        `INSERT INTO "Run" (id, "systemId", "targetVersionId", status, stage, progress, "environmentKind", nodes, environment, profile, seed,
                            "errorStage", "errorMessage", "createdAt", "startedAt", "finishedAt")
         SELECT gen_random_uuid(), v."systemId", v.id, st.status::"RunStatus", CASE WHEN st.status = 'failed' THEN 'verify' END,
                CASE WHEN st.status = 'failed' THEN 20 ELSE 100 END, 'local', CASE WHEN k = $1 THEN 2 ELSE 1 END,
                tr.environment, 'quick', 42,
                CASE WHEN st.status = 'failed' THEN 'verify' END, CASE WHEN st.status = 'failed' THEN '12 of 116 conformance checks failed' END,
                now() - make_interval(days => $1 - k, mins => 30), now() - make_interval(days => $1 - k, mins => 20), now() - make_interval(days => $1 - k)
         FROM "TargetVersion" v JOIN "System" s ON s.id = v."systemId"
         CROSS JOIN generate_series(1, $1::int) k
         CROSS JOIN LATERAL (SELECT CASE WHEN k % 4 = 0 AND k < $1 - 1 THEN 'failed' ELSE 'completed' END AS status) st
         JOIN "Run" tr ON tr.id = $2::uuid
         WHERE s.slug LIKE 'system-%'`,
        m,
        completed[0],
      );
      await tx.$executeRawUnsafe(
        `INSERT INTO "CellResult" (id, "runId", workload, distribution, seed, parameters, valid, "invalidReason", "maxMovingAvg10s", "sustainableRate",
                                   "offeredRate", "achievedRate", "errorRate", p50, p95, p99, p999, mean, max, "throughputPerCore", "coreSecondsPer1000",
                                   "peakRssBytes", "generatorCpuShare", "anomaliesTotal", anomalies, steps, "latencyByTag", "setupOps", series, histograms, breakdown)
         SELECT gen_random_uuid(), r.id, c.workload, c.distribution, c.seed, c.parameters, c.valid, c."invalidReason",
                c."maxMovingAvg10s" * f.f, c."sustainableRate" * f.f, c."offeredRate" * f.f, c."achievedRate" * f.f, c."errorRate",
                c.p50 / f.f, c.p95 / f.f, c.p99 / f.f, c.p999 / f.f, c.mean / f.f, c.max / f.f, c."throughputPerCore" * f.f, c."coreSecondsPer1000" / f.f,
                c."peakRssBytes", c."generatorCpuShare", c."anomaliesTotal", c.anomalies, c.steps, c."latencyByTag", c."setupOps", c.series, c.histograms, c.breakdown
         FROM "Run" r JOIN "System" s ON s.id = r."systemId"
         CROSS JOIN LATERAL (SELECT 0.5 + (abs(hashtext(r.id::text)) % 1000) / 1000.0 AS f) f
         JOIN "CellResult" c ON c."runId" = ${template("s.slug")}
         WHERE s.slug LIKE 'system-%' AND r.status = 'completed'`,
        completed,
      );
      await tx.$executeRawUnsafe(
        `INSERT INTO "RunDocument" ("runId", digest, document)
         SELECT r.id, 'sha256:' || encode(sha256(convert_to(r.id::text, 'UTF8')), 'hex'),
                jsonb_set(jsonb_set(d.document, '{runId}', to_jsonb(r.id::text)), '{target,name}', to_jsonb(s.slug))
         FROM "Run" r JOIN "System" s ON s.id = r."systemId"
         JOIN "RunDocument" d ON d."runId" = CASE WHEN r.status = 'failed' THEN $2::uuid ELSE ${template("s.slug")} END
         WHERE s.slug LIKE 'system-%'`,
        completed,
        failed,
      );
      const raters = opts.raters ?? Math.max(10, Math.round(n / 5));
      await tx.$executeRawUnsafe(
        // accounts a month old with verified addresses: their ratings count (src/server/ratings/counted.ts), as on a portal that has been up a while
        `INSERT INTO "User" (id, email, "passwordHash", "createdAt", "emailVerifiedAt")
         SELECT gen_random_uuid(), format('rater-%s@bench.invalid', i), 'no-password', now() - interval '30 days', now() - interval '30 days' FROM generate_series(1, $1::int) i`,
        raters,
      );
      // each rater rates about one system in ten
      await tx.$executeRawUnsafe(
        `INSERT INTO "Rating" (id, "userId", "systemId", "programmingModel", understandability, "updatedAt")
         SELECT gen_random_uuid(), u.id, s.id, 1 + abs(hashtext(u.id::text || s.id::text)) % 5, 1 + abs(hashtext(s.id::text || u.id::text)) % 5, now()
         FROM "User" u CROSS JOIN "System" s
         WHERE u.email LIKE 'rater-%@bench.invalid' AND s.slug LIKE 'system-%' AND abs(hashtext(u.id::text || s.slug)) % 10 = 0`,
      );
    },
    { timeout: 600_000, maxWait: 10_000 },
  );
  await db.$executeRawUnsafe(`ANALYZE`);
  const [counts] = await db.$queryRawUnsafe<{ systems: number; runs: number; cells: number; documents: number; ratings: number }[]>(
    `SELECT (SELECT count(*)::int FROM "System") AS systems, (SELECT count(*)::int FROM "Run") AS runs,
            (SELECT count(*)::int FROM "CellResult") AS cells, (SELECT count(*)::int FROM "RunDocument") AS documents,
            (SELECT count(*)::int FROM "Rating") AS ratings`,
  );
  return { ...counts!, ms: Math.round(performance.now() - started) };
}
