/**
 * The whole path a user takes: `sfbench submit --wait` -> the portal (next
 * start) -> a queued run -> the worker (dispatcher, pipeline, real
 * node-postgres, k6) -> the leaderboard, and the run pages in a browser for
 * the experiments beyond throughput (a fault run, the microbenchmarks), and a
 * campaign's trials on the populated state its first trial built. Plus
 * bad submissions, refused with the problem named and nothing half-written.
 */
import { spawn } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ResultDocument } from "@sfbench/core";
import type { Db } from "@sfbench/db";
import { PROFILE_SETTINGS } from "@sfbench/engine";
import { runningTarget } from "@sfbench/provider-local";
import { chromiumPath, paths } from "@sfbench/services";
import { chromium } from "playwright-core";
import { startMailSink, type MailSink } from "../../web/scripts/mail-sink.ts";
import { ensureBuild, startServer, type RunningServer } from "../../web/scripts/server.ts";
import { demoAccount, demoCredentials, operatorLink } from "../../../scripts/lib/demo-account.ts";
import { BUNDLED_TARGETS, freshDb, startWorkerProcess, tempDir, uniqueQueue } from "./helpers.ts";

const CLI = fileURLToPath(new URL("../../../packages/cli/bin/sfbench.mjs", import.meta.url));
const MANIFEST = join(BUNDLED_TARGETS, "node-postgres", "target.json");

function sfbench(args: string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      env: { ...process.env, SFBENCH_CONFIG_DIR: tempDir("sfbench-config-"), ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d));
    child.stderr.on("data", (d: Buffer) => (stderr += d));
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

let db: Db;
let server: RunningServer;
let mail: MailSink;
let worker: ReturnType<typeof startWorkerProcess>;
let token: string;

beforeAll(async () => {
  const fresh = await freshDb();
  db = fresh.db;
  ensureBuild();
  // the account is the portal's operator (bundled targets' names are reserved for it), set up through the link `npm run operator` prints
  mail = await startMailSink({ dir: tempDir("sfbench-e2e-mail-") });
  const account = demoCredentials(join(tempDir("sfbench-e2e-account-"), "account.json"));
  server = await startServer({
    databaseUrl: fresh.url,
    env: { SFBENCH_OPERATOR_EMAIL: account.email, SFBENCH_SMTP_HOST: mail.host, SFBENCH_SMTP_PORT: String(mail.port) },
  });
  worker = startWorkerProcess({ DATABASE_URL: fresh.url, SFBENCH_QUEUE: uniqueQueue(), SFBENCH_RESULTS_DIR: tempDir("sfbench-e2e-results-") });
  ({ token } = await demoAccount(server.url, account, (email) => operatorLink(server.url, email, fresh.url)));
}, 600_000);

afterAll(async () => {
  worker?.child.kill("SIGTERM");
  await server?.stop();
  await mail?.stop();
  await db?.$disconnect();
});

describe("submit -> run -> leaderboard", () => {
  it("sfbench submit --wait follows the run to completion and the leaderboard shows it", async () => {
    const r = await sfbench(
      ["submit", "--manifest", MANIFEST, "--server", server.url, "--wait", "--profile", "quick", "--workload", "checkout", "--distribution", "uniform"],
      { SFBENCH_TOKEN: token },
    );
    expect(r.code, `${r.stderr}\n${worker.output()}`).toBe(0);
    // stdout: the run's URL, then (--wait) its summary table
    const runUrl = r.stdout.split("\n")[0]!;
    expect(runUrl).toMatch(new RegExp(`^${server.url}/runs/[0-9a-f-]{36}$`));
    // the CLI's own count goes along only as declared: sfbench counts from the uploaded sources
    expect(r.stderr).toMatch(/node-postgres \d+\.\d+\.\d+: manifest valid; LOC counted here \(sent as declared: .*\) typescript \d+ app \+ \d+ gateway/);
    expect(r.stderr).toMatch(/\[checkout\/uniform\] completed/);
    // the numbers, as `sfbench run` prints them
    expect(r.stdout).toMatch(/\nnode-postgres \d+\.\d+\.\d+, profile quick, completed\ncell .*\ncheckout\/uniform\s+checkouts\s+\d+/);
    const runId = runUrl.split("/").pop()!;
    const cells = await db.cellResult.findMany({ where: { runId } });
    expect(cells.map((c) => `${c.workload}/${c.distribution}`)).toEqual(["checkout/uniform"]);
    const version = await db.targetVersion.findFirstOrThrow({ where: { runs: { some: { id: runId } } } });
    expect(version.loc).toMatchObject({ typescript: { app: expect.any(Number), gateway: expect.any(Number) } });

    const home = await (await fetch(server.url)).text();
    expect(home).toContain("node-postgres");
    const status = await sfbench(["status", runId, "--server", server.url], {});
    expect(status.stdout).toMatch(new RegExp(`run ${runId}: completed`));
    // the URL submit printed works where the id does
    const byUrl = await sfbench(["status", runUrl], {});
    expect(byUrl.code, byUrl.stderr).toBe(0);
    expect(byUrl.stdout).toMatch(new RegExp(`run ${runId}: completed`));
    const results = await sfbench(["results", "node-postgres", "--server", server.url], {});
    expect(results.code, results.stderr).toBe(0);
    expect(results.stdout).toMatch(/latest completed run .*\n.*\n.*\ncheckout\/uniform\s+checkouts\s+\d+/);
  });
});

describe("every experiment from the portal", () => {
  /** Submits node-postgres with these flags, follows the run to its end and returns its id and result document. */
  async function submitted(flags: string[]): Promise<{ runId: string; doc: Record<string, unknown> }> {
    const r = await sfbench(["submit", "--manifest", MANIFEST, "--server", server.url, "--wait", "--profile", "quick", ...flags], { SFBENCH_TOKEN: token });
    expect(r.code, `${r.stderr}\n${worker.output()}`).toBe(0);
    const runId = r.stdout.split("\n")[0]!.split("/").pop()!;
    const run = await db.run.findUniqueOrThrow({ where: { id: runId } });
    return { runId, doc: JSON.parse(readFileSync(run.resultPath!, "utf8")) as Record<string, unknown> };
  }

  it("a fault run and a micro run submitted with sfbench submit end completed, and their run pages draw the fault's and the microbenchmarks' charts", async () => {
    const fault = await submitted(["--experiment", "fault", "--workload", "checkout", "--distribution", "uniform"]);
    const cells = fault.doc.cells as { fault?: { kill: { signal: string; restarted: boolean } } }[];
    expect(cells).toHaveLength(1);
    expect(cells[0]!.fault?.kill).toMatchObject({ signal: "SIGKILL", restarted: true });
    // the node the fault started again is stopped with the run, like the one the run started (teardown follows "completed")
    for (const deadline = performance.now() + 60_000; runningTarget("node-postgres") && performance.now() < deadline;)
      await new Promise((r) => setTimeout(r, 250));
    expect(runningTarget("node-postgres")).toBeUndefined();

    const micro = await submitted(["--workload", "micro"]);
    expect(micro.doc.cells).toEqual([]);
    expect(micro.doc.micro).toMatchObject({ supported: true });

    const browser = await chromium.launch({ executablePath: await chromiumPath(), args: ["--headless", "--no-sandbox", "--disable-gpu"] });
    try {
      const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
      page.setDefaultTimeout(20_000);
      const errors: string[] = [];
      page.on("pageerror", (e) => errors.push(e.message));
      await page.goto(`${server.url}/runs/${fault.runId}`);
      // the fault's load over time with the kill marked, and its figures
      await page.waitForSelector("[data-testid=run-resilience] [data-fault-cell] svg.recharts-surface");
      expect(await page.textContent("[data-testid=fault-figures]")).toMatch(/\d/);
      await page.goto(`${server.url}/runs/${micro.runId}`);
      await page.waitForSelector("[data-testid=run-micro] [data-charts=micro] svg.recharts-surface");
      expect(await page.textContent("[data-testid=micro-overhead-table]")).toContain("empty");
      expect(errors).toEqual([]);
    } finally {
      await browser.close();
    }
  }, 600_000);
});

describe("a campaign through the portal", () => {
  it("sfbench submit --register-only, then campaign --server: the worker runs every trial in the queued order, each document tagged with the campaign and started on the campaign's populated state", async () => {
    const registered = await sfbench(["submit", "--manifest", MANIFEST, "--server", server.url, "--register-only"], { SFBENCH_TOKEN: token });
    expect(registered.code, registered.stderr).toBe(0);
    expect(registered.stdout.trim()).toMatch(new RegExp(`^registered node-postgres \\d+\\.\\d+\\.\\d+: ${server.url}/systems/node-postgres$`));
    // a busy trial is not repeated here: the test asserts the runs the campaign queued, whatever the machine's load
    const queued = await sfbench(
      [
        "campaign",
        "--server",
        server.url,
        "--targets",
        "node-postgres",
        "--trials",
        "2",
        "--busy-repeats",
        "0",
        "--profile",
        "quick",
        "--workload",
        "checkout",
        "--distribution",
        "uniform",
        "--json",
      ],
      { SFBENCH_TOKEN: token },
    );
    expect(queued.code, queued.stderr).toBe(0);
    const created = JSON.parse(queued.stdout) as { campaignId: string; runs: Array<{ runId: string; system: string; round: number }> };
    expect(created.runs.map((r) => r.round)).toEqual([1, 2]);
    const ended = await waitForRuns(created.runs.map((r) => r.runId));
    const docs: ResultDocument[] = [];
    for (const [i, run] of ended.entries()) {
      expect(run.status, `${run.errorMessage ?? ""}\n${worker.output()}`).toBe("completed");
      expect(run).toMatchObject({ campaignId: created.campaignId, trial: i + 1, round: i + 1, attempt: 1 });
      const doc = JSON.parse(readFileSync(run.resultPath!, "utf8")) as ResultDocument;
      expect(doc.campaign).toEqual({ campaignId: created.campaignId, trial: i + 1, round: i + 1, attempt: 1 });
      expect(typeof doc.noise?.busy).toBe("boolean");
      docs.push(doc);
    }
    // the first trial built the state, both started on a copy of it and seeded nothing themselves
    const [first, second] = docs.map((d) => d.populatedState);
    expect(first).toMatchObject({ products: PROFILE_SETTINGS.quick.products });
    expect(second).toEqual(first);
    for (const d of docs) expect(d.rawData.files).not.toContain("seed.csv.gz");
    // and the copy went with the campaign's last run
    expect(existsSync(join(paths.home, "populated", "portal", created.campaignId))).toBe(false);
    // in the order queued: round 1 before round 2
    expect(ended[0]!.startedAt!.getTime()).toBeLessThan(ended[1]!.startedAt!.getTime());
  }, 720_000);
});

async function waitForRuns(ids: string[]) {
  const deadline = performance.now() + 600_000;
  for (;;) {
    const runs = await db.run.findMany({ where: { id: { in: ids } } });
    const done = runs.filter((r) => ["completed", "failed", "interrupted"].includes(r.status) && r.stage === null);
    if (done.length === ids.length) return ids.map((id) => runs.find((r) => r.id === id)!);
    if (performance.now() > deadline)
      throw new Error(`campaign runs still open after 10 minutes: ${runs.map((r) => `${r.id} ${r.status}`).join(", ")}\n${worker.output()}`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

describe("bad submissions", () => {
  const runsNow = () => db.run.count();

  it("needs a token", async () => {
    const r = await sfbench(["submit", "--manifest", MANIFEST, "--server", server.url], {});
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(/no API token for http:\/\/127\.0\.0\.1:\d+: create one on .*\/tokens and store it with `sfbench login/);
  });

  it("refuses a revoked or made-up token with 401", async () => {
    const before = await runsNow();
    const r = await sfbench(["submit", "--manifest", MANIFEST, "--server", server.url], { SFBENCH_TOKEN: "sfb_not-a-real-token" });
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(/refused by .* \(401\):\n.* does not accept the API token from SFBENCH_TOKEN \(unknown, revoked or mistyped\)/);
    expect(await runsNow()).toBe(before);
  });

  it("checks the manifest locally and names the field (unknown fields too)", async () => {
    const file = join(tempDir("sfbench-bad-"), "target.json");
    writeFileSync(
      file,
      JSON.stringify({
        name: "x",
        system: "X",
        version: "1.0.0",
        language: "typescript",
        guarantees: { consistency: "serializable", messaging: "synchronous", durability: "durable" },
        port: 8080,
        loc: { app: ["*.ts"] },
        servics: [],
      }),
    );
    const r = await sfbench(["submit", "--manifest", file, "--server", server.url], { SFBENCH_TOKEN: token });
    expect(r.code).toBe(1);
    expect(r.stderr.trim()).toMatch(/target\.json: servics: unknown field \(did you mean "services"\?\)/);
  });

  it("refuses a bundled target's name to an account that is not the operator with 403 (exit 4), and writes nothing", async () => {
    // a second account, signed up through the API like a person would
    const credentials = {
      method: "POST",
      headers: { "content-type": "application/json", origin: server.url },
      body: JSON.stringify({ email: "mallory@example.com", password: "correct horse battery" }),
    };
    expect((await fetch(`${server.url}/api/trpc/auth.signUp`, credentials)).status).toBe(200);
    const signIn = await fetch(`${server.url}/api/trpc/auth.signIn`, credentials);
    const cookie = signIn.headers
      .getSetCookie()
      .map((c) => c.split(";")[0])
      .join("; ");
    const created = (await (
      await fetch(`${server.url}/api/trpc/tokens.create`, {
        method: "POST",
        headers: { "content-type": "application/json", origin: server.url, cookie },
        body: JSON.stringify({ name: "mallory" }),
      })
    ).json()) as { result: { data: { token: string } } };
    const before = await runsNow();
    const r = await sfbench(["submit", "--manifest", MANIFEST, "--server", server.url], { SFBENCH_TOKEN: created.result.data.token });
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(/name: the name "node-postgres" is a bundled target and belongs to the operator/);
    expect(await runsNow()).toBe(before);
  });
});
