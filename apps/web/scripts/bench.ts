/**
 * npm run bench:web [-- --quick] [--systems N] [--runs N] [--requests N] [--json]
 *
 * Seeds a fresh database with N systems x M runs (default 1,000 x 10; --quick:
 * 50 x 10), starts the production server on it, and measures the server
 * response time of the leaderboard and compare pages (sequential requests,
 * full body), as served (the leaderboard's data cached for 10 s) and with the
 * cache off (every request from the database). Prints p50/p95 per page against
 * the goal (p95 <= 100 ms, as served).
 */
import { randomBytes } from "node:crypto";
import { parseArgs } from "node:util";
import { createDb, migrate } from "@sfbench/db";
import { createDatabase, postgresUrl, up } from "@sfbench/services";
import { measure, type Timing } from "./bench/measure.ts";
import { seed } from "./bench/seed.ts";
import { ensureBuild, startServer } from "./server.ts";

const GOAL_P95_MS = 100;

const { values } = parseArgs({
  options: {
    quick: { type: "boolean", default: false },
    systems: { type: "string" },
    runs: { type: "string" },
    requests: { type: "string" },
    json: { type: "boolean", default: false },
    keep: { type: "boolean", default: false },
  },
});

function positive(flag: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) {
    process.stderr.write(`bench:web: --${flag} must be a positive whole number, got "${value}"\n`);
    process.exit(2);
  }
  return n;
}

const quick = values.quick;
const systems = positive("systems", values.systems, quick ? 50 : 1000);
const runs = positive("runs", values.runs, 10);
const requests = positive("requests", values.requests, quick ? 20 : 200);
const log = (line: string) => process.stdout.write(`${line}\n`);

await up(["postgres"]);
const name = `bench_web_${randomBytes(4).toString("hex")}`;
const url = await createDatabase(name);
await migrate(url);
const db = createDb(url);
let server: Awaited<ReturnType<typeof startServer>> | undefined;
try {
  log(`seeding ${systems} systems x ${runs} runs into ${name} ...`);
  const seeded = await seed(db, { systems, runsPerSystem: runs });
  log(
    `seeded in ${(seeded.ms / 1000).toFixed(1)} s: ${seeded.systems} systems, ${seeded.runs} runs, ${seeded.cells} cells, ${seeded.documents} documents, ${seeded.ratings} ratings`,
  );
  if (ensureBuild(log)) log("built");
  const slug = (i: number) => `system-${String(i).padStart(5, "0")}`;
  let k = 0;
  const comparePick = (base: string) => () => {
    // a different set of 3 systems every request
    k += 1;
    const ids = [1 + ((k * 7) % systems), 1 + ((k * 13 + 1) % systems), 1 + ((k * 29 + 2) % systems)];
    return `${base}/compare?systems=${[...new Set(ids)].map(slug).join(",")}`;
  };
  const pages = async (cacheSeconds: string, label: string): Promise<Timing[]> => {
    server = await startServer({ databaseUrl: url, env: { SFBENCH_LEADERBOARD_CACHE_SECONDS: cacheSeconds } });
    const base = server.url;
    try {
      return [
        await measure(`leaderboard${label}`, () => `${base}/`, requests),
        await measure(`leaderboard, filtered + sorted${label}`, () => `${base}/?workload=checkout&distribution=zipf&nodes=1&sort=p99`, requests),
        await measure(`compare, 3 systems${label}`, comparePick(base), requests),
      ];
    } finally {
      await server.stop();
      server = undefined;
    }
  };
  // as served (leaderboard data cached for 10 s, stale-while-revalidate), then every request from the database
  const served = await pages("10", "");
  const uncached = await pages("0", " (no cache)");
  log("");
  log(`page                                          requests   p50 ms   p95 ms   max ms    bytes`);
  for (const t of [...served, ...uncached]) {
    log(
      `${t.name.padEnd(46)}${String(t.requests).padStart(8)}${t.p50.toFixed(1).padStart(9)}${t.p95.toFixed(1).padStart(9)}${t.max.toFixed(1).padStart(9)}${String(t.bytes).padStart(9)}`,
    );
  }
  const over = served.filter((t) => t.p95 > GOAL_P95_MS);
  log(
    over.length
      ? `goal p95 <= ${GOAL_P95_MS} ms (as served): missed by ${over.map((t) => t.name).join(", ")}`
      : `goal p95 <= ${GOAL_P95_MS} ms (as served): met`,
  );
  if (values.json) log(JSON.stringify({ systems, runs, requests, seeded, timings: served, uncached, goalP95Ms: GOAL_P95_MS }));
} finally {
  await server?.stop();
  await db.$disconnect();
  if (!values.keep) {
    const admin = createDb(postgresUrl(), { max: 1 });
    await admin.$executeRawUnsafe(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`).finally(() => admin.$disconnect());
  } else log(`kept database ${url}`);
}
