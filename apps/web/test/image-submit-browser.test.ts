/**
 * A team's image archive through the web form, in Chromium against `next
 * start`: node-postgres's image as the demo's --with-image entry prepares it
 * (scripts/lib/demo-image.ts: `sfbench image build`, `podman save`, its
 * target.json under a name of its own), signed in as a verified account, the
 * manifest and the archive picked in the submit form; the browser uploads the
 * archive and lands on the run, queued to run on sfbench's machine (not
 * waiting for a cluster), with the upload stored and tied to the version.
 * Once such a run is measured, its page's setup line says its CPU cost came
 * from the container's cgroups. The worker's part is
 * apps/worker/test/packed-image-submit.test.ts.
 */
import { mkdirSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { chromiumPath } from "@sfbench/services";
import { chromium, type Browser, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { importResult } from "@sfbench/db";
import { demoAccount, demoCredentials, operatorLink } from "../../../scripts/lib/demo-account.ts";
import { IMAGE_DEMO, prepareImageSubmission, type ImageSubmission } from "../../../scripts/lib/demo-image.ts";
import { startMailSink, type MailSink } from "../scripts/mail-sink.ts";
import { appDir, ensureBuild, startServer, type RunningServer } from "../scripts/server.ts";
import { fixtureManifest } from "../fixtures/manifest.ts";
import { fixtureResult } from "../fixtures/result-doc.ts";
import { testDatabase, type TestDatabase } from "./helpers/database.ts";

const REPO = fileURLToPath(new URL("../../..", import.meta.url));
const artifacts = path.join(appDir, "test-artifacts", "image-submit");
// this test's own port for the portal
const PORTAL_PORT = 21320;

let t: TestDatabase;
let home: string;
let prepared: ImageSubmission;
let mail: MailSink;
let server: RunningServer;
let account: { email: string; password: string };
let browser: Browser;
let page: Page;

beforeAll(async () => {
  mkdirSync(artifacts, { recursive: true });
  home = mkdtempSync(path.join(tmpdir(), "sfbench-image-form-"));
  prepared = await prepareImageSubmission({
    root: REPO,
    cli: path.join(REPO, "packages", "cli", "bin", "sfbench.mjs"),
    dir: path.join(home, IMAGE_DEMO.name),
    say: (line) => console.log(line),
  });
  t = await testDatabase();
  ensureBuild((line) => console.log(line));
  mail = await startMailSink({ dir: path.join(home, "mail") });
  account = demoCredentials(path.join(home, "account.json"));
  server = await startServer({
    databaseUrl: t.url,
    port: PORTAL_PORT,
    env: { SFBENCH_SMTP_HOST: mail.host, SFBENCH_SMTP_PORT: String(mail.port), SFBENCH_DATA_DIR: path.join(home, "portal") },
  });
  // a verified account, set up through the link `npm run operator` prints (this portal names no operator: it is only verified)
  await demoAccount(server.url, account, (email) => operatorLink(server.url, email, t.url));
  browser = await chromium.launch({
    executablePath: await chromiumPath(),
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"],
  });
  page = await browser.newPage({ viewport: { width: 1200, height: 1000 } });
  page.setDefaultTimeout(60_000);
}, 1_200_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await mail?.stop();
  await t?.drop();
  if (home) rmSync(home, { recursive: true, force: true });
});

describe("an image archive through the submit form, in Chromium", () => {
  it("uploads node-postgres's archive with its target.json and lands on the run, queued for sfbench's machine", async () => {
    await page.goto(`${server.url}/signin`, { waitUntil: "networkidle" });
    await page.fill("#email", account.email);
    await page.fill("#password", account.password);
    await page.click("button[type=submit]");
    await page.waitForSelector("[data-testid=viewer]");

    await page.goto(`${server.url}/submit`, { waitUntil: "networkidle" });
    await page.setInputFiles("#manifest", prepared.manifest);
    // the form fills its inputs from the manifest, the image named in it included
    await page.waitForFunction((name) => (document.querySelector("#name") as HTMLInputElement | null)?.value === name, IMAGE_DEMO.name);
    expect(await page.inputValue("#image")).toBe(prepared.image);
    await page.setInputFiles("#imageArchive", prepared.archive);
    await page.fill("#loc", '{"typescript": {"app": 300, "gateway": 40}}');
    await page.click("text=Submit for benchmarking");
    await page.waitForURL(/\/runs\/[0-9a-f-]{36}$/, { timeout: 300_000 });
    const runId = page.url().split("/").pop()!;
    await page.waitForSelector("[data-testid=run-progress][data-status=queued]");
    await page.screenshot({ path: path.join(artifacts, "run-queued.png"), fullPage: true });

    const run = await t.db.run.findUniqueOrThrow({ where: { id: runId }, include: { targetVersion: true } });
    expect(run.status).toBe("queued");
    const upload = await t.db.upload.findFirstOrThrow({ where: { targetVersionId: run.targetVersionId, kind: "image_archive" } });
    expect(Number(upload.size)).toBe(statSync(prepared.archive).size);
    expect(upload.references).toContain(prepared.image);
  }, 600_000);

  it("shows on a measured container run's page that its CPU cost came from the cgroups", async () => {
    const { manifest, digest } = fixtureManifest("np-container", { image: prepared.image });
    const doc = fixtureResult({
      size: "small",
      seed: 9,
      target: { name: "np-container", system: manifest.system, version: manifest.version, manifestDigest: digest },
    });
    doc.environment.cost = { source: "cgroup" };
    await importResult(t.db, doc, { manifest });
    await page.goto(`${server.url}/runs/${doc.runId}`, { waitUntil: "networkidle" });
    expect(await page.textContent("[data-testid=run-setup]")).toContain("CPU cost from the containers' cgroups (and the target's own PostgreSQL's processes)");
  });
});
