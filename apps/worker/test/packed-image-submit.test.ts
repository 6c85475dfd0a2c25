/**
 * A team's image submission, end to end: the CLI as `npm pack` publishes it,
 * installed in an empty folder outside the workspace, logs in to the real
 * portal (`next start`), submits node-postgres's image archive with --wait and
 * reads the run's status; the real worker (its own queue, real PostgreSQL and
 * Redis) loads the archive into podman, runs the container through the quick
 * profile (a run with a stored image archive is not needs_cluster) and stores
 * the result, which the leaderboard then shows. The image's tag is removed
 * before the submission, so that only loading the archive brings it back, and
 * the worker removes it again after the run: a team's image lives only as long
 * as its run. The folder
 * is what the demo's --with-image entry prepares (scripts/lib/demo-image.ts:
 * `sfbench image build`, `podman save`, target.json under a name of its own).
 */
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseResult } from "@sfbench/core";
import type { Db } from "@sfbench/db";
import { podman, runContainers } from "@sfbench/provider-container";
import { startMailSink, type MailSink } from "../../web/scripts/mail-sink.ts";
import { ensureBuild, startServer, type RunningServer } from "../../web/scripts/server.ts";
import { demoAccount, demoCredentials, operatorLink } from "../../../scripts/lib/demo-account.ts";
import { IMAGE_DEMO, prepareImageSubmission, type ImageSubmission } from "../../../scripts/lib/demo-image.ts";
import { installPackedCli, type TeamNpx } from "../../../packages/cli/test/team.ts";
import { freshDb, startWorkerProcess, tempDir, uniqueQueue } from "./helpers.ts";

const REPO = fileURLToPath(new URL("../../..", import.meta.url));
const CLI_PACKAGE = join(REPO, "packages", "cli");
// this test's own ports: the portal, and the one its manifest names for the container
const PORTAL_PORT = 21310;
const TARGET_PORT = 21311;

let db: Db;
let server: RunningServer;
let mail: MailSink;
let worker: ReturnType<typeof startWorkerProcess>;
let token: string;
let home: string;
let team: string;
let prepared: ImageSubmission;
let npx: TeamNpx;

beforeAll(async () => {
  home = tempDir("sfbench-team-image-");
  team = join(home, IMAGE_DEMO.name);
  // the demo's preparation: the image built (cached by the container provider), saved, its target.json and sources beside it
  prepared = await prepareImageSubmission({
    root: REPO,
    cli: join(CLI_PACKAGE, "bin", "sfbench.mjs"),
    dir: team,
    say: (line) => console.log(line),
    port: TARGET_PORT,
  });
  // the archive holds the tag; the storage keeps sfbench's own build of the same layers under its other name
  await podman(["untag", prepared.image, prepared.image]);
  npx = await installPackedCli(home, team);

  const fresh = await freshDb();
  db = fresh.db;
  ensureBuild((line) => console.log(line));
  mail = await startMailSink({ dir: join(home, "mail") });
  const account = demoCredentials(join(home, "account.json"));
  server = await startServer({
    databaseUrl: fresh.url,
    port: PORTAL_PORT,
    env: { SFBENCH_OPERATOR_EMAIL: account.email, SFBENCH_SMTP_HOST: mail.host, SFBENCH_SMTP_PORT: String(mail.port), SFBENCH_DATA_DIR: join(home, "portal") },
  });
  worker = startWorkerProcess({ DATABASE_URL: fresh.url, SFBENCH_QUEUE: uniqueQueue(), SFBENCH_RESULTS_DIR: join(home, "results") });
  ({ token } = await demoAccount(server.url, account, (email) => operatorLink(server.url, email, fresh.url)));
}, 1_200_000);

afterAll(async () => {
  if (worker && worker.child.exitCode === null) {
    const exited = new Promise((r) => worker.child.once("exit", r));
    worker.child.kill("SIGTERM");
    await exited;
  }
  await server?.stop();
  await mail?.stop();
  await db?.$disconnect();
  if (home) rmSync(home, { recursive: true, force: true });
}, 120_000);

describe("a team submits its image archive with the packed CLI", () => {
  it("logs in, submits with --wait, the worker loads the archive, runs the container to completion and removes the image, and status and the leaderboard show it", async () => {
    await expect(podman(["image", "exists", prepared.image])).rejects.toThrow();
    const login = await npx(["login", "--server", server.url, "--token", token]);
    expect(login.code, login.stderr).toBe(0);
    const submit = await npx([
      "submit",
      "--manifest",
      "target.json",
      "--image-archive",
      prepared.archive,
      "--server",
      server.url,
      "--wait",
      "--profile",
      "quick",
      "--workload",
      "checkout",
      "--distribution",
      "uniform",
    ]);
    expect(submit.code, `${submit.stderr}\n${worker.output()}`).toBe(0);
    const runUrl = submit.stdout.split("\n")[0]!;
    expect(runUrl).toMatch(new RegExp(`^${server.url}/runs/[0-9a-f-]{36}$`));
    expect(submit.stdout).toMatch(new RegExp(`\\n${IMAGE_DEMO.name} \\d+\\.\\d+\\.\\d+, profile quick, completed\\n`));
    const runId = runUrl.split("/").pop()!;

    const status = await npx(["status", runUrl]);
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toMatch(new RegExp(`run ${runId}: completed`));

    // the worker ran the image from the uploaded archive, in a container whose cgroups gave the cost, and removed it
    const row = await db.run.findUniqueOrThrow({ where: { id: runId } });
    const doc = parseResult(readFileSync(row.resultPath!, "utf8"));
    if (!doc.ok) throw new Error(doc.errors.join("; "));
    expect(doc.result.environment.systemVersion).toContain(`image ${prepared.image}`);
    expect(doc.result.environment.cost).toEqual({ source: "cgroup" });
    expect(doc.result.cells[0]?.cost?.targetCpuSeconds ?? 0).toBeGreaterThan(0);
    expect(await runContainers(runId)).toEqual([]);
    // the team's image lived only as long as its run: the next run loads the archive again
    await expect(podman(["image", "exists", prepared.image])).rejects.toThrow();

    const board = await (await fetch(server.url)).text();
    expect(board).toContain(IMAGE_DEMO.name);
  }, 900_000);
});
