/**
 * In Chromium, against `next start` on a fresh database: the page of a run
 * that waits for a cluster says that this server has no Kubernetes cluster
 * configured, names the image that would be deployed there, and its link
 * leads to the served cluster docs (docs/cluster.md at /docs/cluster).
 */
import { mkdirSync } from "node:fs";
import path from "node:path";
import { chromiumPath } from "@sfbench/services";
import { chromium, type Browser, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { appDir, ensureBuild, startServer, type RunningServer } from "../scripts/server.ts";
import { fixtureManifest } from "../fixtures/manifest.ts";
import { testDatabase, type TestDatabase } from "./helpers/database.ts";

const artifacts = path.join(appDir, "test-artifacts", "needs-cluster");
const reason = "this server has no cluster configured: image ghcr.io/sfbench/orleans:0.1.0 runs only on Kubernetes";

let t: TestDatabase;
let server: RunningServer;
let browser: Browser;
let page: Page;
let runId: string;

beforeAll(async () => {
  mkdirSync(artifacts, { recursive: true });
  t = await testDatabase();
  const { manifest, digest } = fixtureManifest("orleans");
  const system = await t.db.system.create({ data: { slug: "orleans", name: manifest.system } });
  const version = await t.db.targetVersion.create({
    data: { systemId: system.id, version: manifest.version, manifest: manifest as object, manifestDigest: digest },
  });
  const run = await t.db.run.create({
    data: {
      systemId: system.id,
      targetVersionId: version.id,
      environmentKind: "kubernetes",
      nodes: 5,
      profile: "standard",
      status: "needs_cluster",
      errorMessage: reason,
    },
  });
  runId = run.id;
  ensureBuild((line) => process.stdout.write(`${line}\n`));
  server = await startServer({ databaseUrl: t.url });
  browser = await chromium.launch({
    executablePath: await chromiumPath(),
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"],
  });
  page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
  page.setDefaultTimeout(20_000);
}, 900_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await t?.drop();
});

describe("a run waiting for a cluster, in Chromium", () => {
  it("says this server has no cluster, which image would be deployed, and links the cluster docs", async () => {
    await page.goto(`${server.url}/runs/${runId}`, { waitUntil: "networkidle" });
    const box = (await page.textContent("[data-testid=run-needs-cluster]"))!.replace(/\s+/g, " ");
    expect(box).toContain("This server has no Kubernetes cluster configured.");
    expect(box).toContain("deploy the manifest's image ghcr.io/sfbench/orleans:0.1.0 there");
    expect(box).toContain("SFBENCH_KUBECONFIG");
    expect(box).toContain(`The worker said: ${reason}`);
    expect(await page.getAttribute("[data-testid=run-status]", "data-status")).toBe("needs_cluster");
    await page.screenshot({ path: path.join(artifacts, "run.png"), fullPage: true });

    await page.click("[data-testid=run-needs-cluster] >> text=Running on a cluster");
    await page.waitForSelector("[data-testid=doc-cluster]");
    expect(page.url()).toBe(`${server.url}/docs/cluster`);
    expect(await page.textContent("[data-testid=doc-cluster] h1")).toBe("Running on a cluster");
    expect(await page.textContent("[data-testid=doc-cluster]")).toContain("kubectl delete namespace sfbench-<run id>");
    await page.screenshot({ path: path.join(artifacts, "docs.png"), fullPage: true });
  });
});
