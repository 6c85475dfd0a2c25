/**
 * In Chromium, against `next start` on a fresh database with fixture result
 * documents imported through importResult (schema 2): a run page draws the
 * microbenchmarks (overhead bars, ping-pong eCDF, divide and Big tables) and
 * the fault cell's throughput chart with the kill marked and its figures; the
 * compare page draws the micro charts side by side; the leaderboard's micro
 * view lists the systems' figures; a system page says which resilience
 * experiments its manifest cannot do.
 */
import { mkdirSync } from "node:fs";
import path from "node:path";
import { chromiumPath } from "@sfbench/services";
import { chromium, type Browser, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ResultDocument } from "@sfbench/core";
import { formatNumber } from "../src/charts/components/common.tsx";
import { appDir, ensureBuild, startServer, type RunningServer } from "../scripts/server.ts";
import { testDatabase, type TestDatabase } from "./helpers/database.ts";
import { importFixture } from "./helpers/results.ts";

const artifacts = path.join(appDir, "test-artifacts", "run-experiments");

let t: TestDatabase;
let server: RunningServer;
let browser: Browser;
let page: Page;
let alpha: ResultDocument;
let beta: ResultDocument;

beforeAll(async () => {
  mkdirSync(artifacts, { recursive: true });
  t = await testDatabase();
  alpha = await importFixture(t.db, "alpha", { seed: 5, capacity: 900, micro: "supported", faultCell: "checkout/uniform", resilience: true });
  beta = await importFixture(t.db, "beta", { seed: 6, capacity: 1500, micro: "supported" });
  await importFixture(t.db, "gamma", { seed: 7, micro: "unsupported" });
  ensureBuild((line) => process.stdout.write(`${line}\n`));
  server = await startServer({ databaseUrl: t.url });
  browser = await chromium.launch({
    executablePath: await chromiumPath(),
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"],
  });
  page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
  page.setDefaultTimeout(30_000);
}, 1_200_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await t?.drop();
});

/** the number of drawn marks (bars, lines) inside a chart's SVG */
async function svgMarks(selector: string): Promise<number> {
  return page.locator(`${selector} svg .recharts-bar-rectangle, ${selector} svg .recharts-line-curve`).count();
}

describe("microbenchmarks and resilience results, in Chromium", () => {
  it("the run page draws the micro charts and tables and the fault chart with the kill marked", async () => {
    await page.goto(`${server.url}/runs/${alpha.runId}`, { waitUntil: "networkidle" });
    await page.waitForSelector("[data-testid=run-micro] [data-chart=micro-overhead] svg");
    expect(await page.locator("[data-testid=run-micro] [data-chart=micro-overhead]").count()).toBe(4);
    expect(await svgMarks("[data-route=empty] [data-chart=micro-overhead]")).toBeGreaterThanOrEqual(6);
    expect(await svgMarks("[data-chart=micro-pingpong-ecdf]")).toBe(4);
    const micro = alpha.micro as Extract<NonNullable<ResultDocument["micro"]>, { supported: true }>;
    expect(await page.textContent("[data-testid=micro-empty-max-rate]")).toContain(`${formatNumber(micro.emptyMaxRate.sustainableRate!)} requests/s`);
    expect(await page.locator("[data-testid=micro-divide-table] tbody tr").count()).toBe(micro.divide.length);
    expect(await page.locator("[data-testid=micro-big-table] tbody tr").count()).toBe(micro.big.length);

    const fault = alpha.cells.find((c) => c.fault)!.fault!;
    await page.waitForSelector("[data-chart=fault-series] svg .recharts-reference-line", { state: "attached" });
    expect(await page.locator("[data-chart=fault-series] svg .recharts-reference-line line").count()).toBe(1);
    expect(await page.locator("[data-chart=fault-series] svg text", { hasText: "kill -9 node 0" }).count()).toBe(1);
    expect(await svgMarks("[data-chart=fault-series]")).toBeGreaterThanOrEqual(3);
    const figures = (await page.textContent("[data-testid=fault-figures]"))!;
    expect(figures).toContain("error window");
    expect(figures).toContain(`lost (no answer)${fault.lost}`);
    expect(figures).toContain("recovered after3 s");
    await page.waitForSelector("[data-chart=recovery] svg .recharts-line-curve");
    expect(await page.textContent("[data-testid=resilience-unsupported]")).toContain("scale-up: not supported: nodes cannot join a running target");
    await page.screenshot({ path: path.join(artifacts, "run.png"), fullPage: true });
  });

  it("the compare page draws the micro charts side by side, the leaderboard's micro view lists the figures, and a system page lists what it cannot do", async () => {
    await page.goto(`${server.url}/compare?systems=alpha,beta,gamma`, { waitUntil: "networkidle" });
    await page.waitForSelector("[data-chart=micro-overhead-compare] svg .recharts-bar-rectangle");
    expect(await page.locator("[data-testid=micro-compare] [data-chart=micro-pingpong-ecdf]").count()).toBe(4);
    expect(await svgMarks("[data-config='1x64'] [data-chart=micro-pingpong-ecdf]")).toBe(2);
    expect(await svgMarks("[data-chart=micro-big]")).toBe(2);
    expect(await page.textContent("[data-testid=micro-compare] [data-notes]")).toContain("micro: not supported");
    await page.screenshot({ path: path.join(artifacts, "compare.png"), fullPage: true });

    await page.goto(`${server.url}/?view=micro`, { waitUntil: "networkidle" });
    const rows = page.locator("[data-testid=micro-leaderboard] tbody tr");
    expect(await rows.count()).toBe(3);
    expect(await page.textContent("form.filters")).toContain("3 rows");
    expect(await page.locator("form.filters select[name=workload]").count()).toBe(0);
    expect(await page.getAttribute("form.filters input[name=view]", "value")).toBe("micro");
    expect(await page.textContent("[data-testid=micro-leaderboard] tr[data-system=gamma]")).toContain("micro: not supported");
    expect(await page.textContent("[data-testid=micro-leaderboard] tr[data-system=beta]")).toContain("1,000 entities");
    expect(await page.getAttribute("[data-testid=micro-leaderboard] tr[data-system=beta] a[href^='/runs/']", "href")).toBe(`/runs/${beta.runId}`);

    await page.goto(`${server.url}/systems/alpha`, { waitUntil: "networkidle" });
    // the fixture manifest has no local start command, so the local provider can run none of the experiments
    expect(await page.textContent("[data-testid=system-experiments-unsupported]")).toContain("fault: not supported: the manifest has no local start command");
    await page.waitForSelector("[data-testid=system-resilience] [data-chart=fault-series] svg");
    expect(await page.locator("[data-testid=system-micro] tbody tr").count()).toBe(1);
  });
});
