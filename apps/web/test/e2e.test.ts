/**
 * The portal in a real browser: Debian's Chromium driven by playwright-core
 * against `next start` (production build) on a fresh database with imported
 * fixture results. Signs up, creates a token, submits (a rejected manifest
 * first), watches a run's live progress, opens leaderboard, system, run and
 * compare pages and checks that the charts rendered; a 3-trial campaign on
 * its own machine class shows medians, intervals, n and a tie on the board.
 * Screenshots go to test-artifacts/e2e/.
 */
import { mkdirSync } from "node:fs";
import path from "node:path";
import { chromiumPath } from "@sfbench/services";
import { chromium, type Browser, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { linkIn, startMailSink, type MailSink } from "../scripts/mail-sink.ts";
import { appDir, ensureBuild, startServer, type RunningServer } from "../scripts/server.ts";
import { fixtureManifest } from "../fixtures/manifest.ts";
import { testDatabase, type TestDatabase } from "./helpers/database.ts";
import { importCampaignFixture, importFixture } from "./helpers/results.ts";

const artifacts = path.join(appDir, "test-artifacts", "e2e");
const EVIL = "<script>alert(1)</script>";
const CAMPAIGN_MACHINE = { cpuModel: "AMD EPYC 9B14", cores: 2, memoryBytes: 24 * 2 ** 30 };
const CAMPAIGN_CLASS = "2 cores, AMD EPYC 9B14, 24 GiB";

let t: TestDatabase;
let server: RunningServer;
let mail: MailSink;
let browser: Browser;
let page: Page;
const dialogs: string[] = [];
const pageErrors: string[] = [];

beforeAll(async () => {
  mkdirSync(artifacts, { recursive: true });
  t = await testDatabase();
  await importFixture(t.db, "alpha", { system: "Alpha Actors", capacity: 1500, seed: 1, size: "full", finishedAt: new Date(Date.UTC(2026, 10, 20)) });
  await importFixture(t.db, "alpha", { system: "Alpha Actors", capacity: 2600, seed: 2, environment: { kind: "local", nodes: 2 } });
  await importFixture(t.db, "beta", { system: "Beta Functions", capacity: 900, seed: 3, size: "full", finishedAt: new Date(Date.UTC(2026, 10, 20)) });
  await importFixture(t.db, "gamma", { system: "Gamma Grains", capacity: 600, seed: 4, invalidCell: "analytics/zipf" });
  await importFixture(t.db, "delta", { system: "Delta Down", failed: true, seed: 5 });
  await importFixture(t.db, "epsilon", { system: "Epsilon Tuned", capacity: 4000, seed: 6, manifest: { implementation: "tuned" } });
  // a campaign of 3 trials per target on another machine: kappa and lambda within each other's noise, the reference below
  await importCampaignFixture(
    t.db,
    [
      { name: "node-postgres", system: "Node.js + PostgreSQL", capacities: [700, 720, 690] },
      { name: "kappa", system: "Kappa Cells", capacities: [1500, 1620, 1560], busyRounds: [2] },
      { name: "lambda", system: "Lambda Lanes", capacities: [1540, 1580, 1500] },
    ],
    { machine: CAMPAIGN_MACHINE },
  );
  ensureBuild((line) => process.stdout.write(`${line}\n`));
  // the portal mails its verification links to a real SMTP server on loopback
  mail = await startMailSink({ dir: path.join(artifacts, "mail") });
  server = await startServer({ databaseUrl: t.url, env: { SFBENCH_SMTP_HOST: mail.host, SFBENCH_SMTP_PORT: String(mail.port) } });
  browser = await chromium.launch({
    executablePath: await chromiumPath(),
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"],
  });
  page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
  page.setDefaultTimeout(20_000);
  page.on("dialog", (d) => {
    dialogs.push(d.message());
    void d.dismiss();
  });
  page.on("pageerror", (e) => pageErrors.push(e.message));
  // what the Content-Security-Policy blocked shows as a console error: the pages must need nothing it forbids
  page.on("console", (m) => void (m.type() === "error" && /Content Security Policy/i.test(m.text()) && pageErrors.push(m.text())));
}, 400_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await mail?.stop();
  await t?.drop();
});

const go = (p: string) => page.goto(`${server.url}${p}`, { waitUntil: "networkidle" });
const shot = (name: string) => page.screenshot({ path: path.join(artifacts, `${name}.png`), fullPage: true });

describe("the portal in Chromium", () => {
  it("signs up and shows the signed-in user", async () => {
    const res = await go("/signup");
    expect(res!.headers()["content-security-policy"]).toContain("frame-ancestors 'none'");
    await page.fill("#email", "e2e@example.com");
    await page.fill("#password", "a long enough password");
    await page.click("button[type=submit]");
    await page.waitForSelector("[data-testid=viewer]");
    expect(await page.textContent("[data-testid=viewer]")).toBe("e2e@example.com");
    await shot("01-signed-up");
  });

  it("creates an API token and shows it once", async () => {
    await go("/tokens");
    await page.fill("#token-name", "laptop");
    await page.click("text=Create token");
    const token = await page.textContent("[data-testid=new-token] code.token");
    expect(token).toMatch(/^sfb_[\w-]{43}$/);
    await page.waitForSelector("td >> text=laptop");
    await shot("02-token");
    const me = await fetch(`${server.url}/api/trpc/auth.me`, { headers: { authorization: `Bearer ${token}` } });
    expect(((await me.json()) as { result: { data: { email: string } } }).result.data.email).toBe("e2e@example.com");
  });

  it("rejects an invalid target.json in the browser, with the error next to the upload", async () => {
    await go("/submit");
    const bad = { ...fixtureManifest("e2e-system").manifest, port: 80 };
    await page.setInputFiles("#manifest", { name: "target.json", mimeType: "application/json", buffer: Buffer.from(JSON.stringify(bad)) });
    const error = page.locator("#manifest-error");
    await error.waitFor();
    expect(await error.textContent()).toContain("port: ");
    expect(await page.inputValue("#name")).toBe("e2e-system"); // the form was filled from the file
    await shot("03-submit-invalid-manifest");
  });

  it("shows the server's refusal inline too: a name that belongs to another account", async () => {
    await page.fill("#name", "alpha");
    const good = fixtureManifest("e2e-system").manifest;
    await page.setInputFiles("#manifest", { name: "target.json", mimeType: "application/json", buffer: Buffer.from(JSON.stringify(good)) });
    await page.fill("#name", "alpha");
    await page.click("text=Submit for benchmarking");
    const error = page.locator("#name-error");
    await error.waitFor();
    expect(await error.textContent()).toContain("belongs to another account");
    await shot("04-submit-server-error");
  });

  it("submits, lands on the queued run, and follows its progress live", async () => {
    await page.fill("#name", "e2e-system");
    await page.fill("#system", EVIL);
    await page.fill("#loc", '{"typescript": {"app": 420, "gateway": 80}}');
    await page.click("text=Submit for benchmarking");
    await page.waitForURL(/\/runs\/[0-9a-f-]{36}$/);
    const runId = page.url().split("/").pop()!;
    await page.waitForSelector("[data-testid=run-progress][data-status=queued]");
    // no worker takes it here: it waits, and says what for
    expect(await page.textContent("[data-testid=run-ahead]")).toMatch(/^Waiting/);
    await shot("05-run-queued");
    await t.db.run.update({ where: { id: runId }, data: { status: "running", stage: "load", progress: 40, startedAt: new Date() } });
    await page.waitForSelector("[data-testid=run-progress][data-status=running]");
    await page.waitForSelector("[data-testid=run-progress] >> text=40%");
    expect(await page.textContent("[data-testid=run-progress]")).toContain("load");
    await shot("06-run-running");
  });

  it("renders a system named <script>alert(1)</script> as text", async () => {
    await go("/systems/e2e-system");
    expect(await page.textContent("[data-testid=system-name]")).toBe(EVIL);
    expect(await page.locator("script:has-text('alert(1)')").count()).toBe(0);
    expect(dialogs).toEqual([]);
    await shot("07-system-xss");
  });

  it("opens the leaderboard on one population: imported results, a verified badge, an invalid cell, no failed run; sortable", async () => {
    await go("/");
    // the machine with the most ranked systems; the campaign's machine is another population, one click away
    expect(await page.textContent("[data-testid=population-shown]")).toMatch(/^local · standard profile · /);
    expect(await page.textContent("[data-testid=other-populations]")).toContain(CAMPAIGN_CLASS);
    const rows = page.locator("[data-testid=leaderboard] tbody[data-testid=ranked] tr");
    const systems = await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute("data-system")));
    expect(systems.sort()).toEqual(["alpha", "alpha", "beta", "gamma"]);
    expect(await page.locator("tr[data-system=alpha] .badge.verified").count()).toBe(2);
    expect(await page.locator("tr[data-system=gamma] .invalid").count()).toBe(1);
    // the failed system is no row of numbers: it stands below the ranked rows with its failed stage
    expect(await page.locator("[data-testid=leaderboard] tbody[data-testid=ranked] >> text=Delta Down").count()).toBe(0);
    expect(await page.textContent("[data-testid=unranked] tr[data-system=delta] [data-reasons]")).toMatch(/^failed: failed at verify: /);
    await shot("08-leaderboard");
    await page.click("th >> text=System");
    await page.waitForURL(/sort=system/);
    const sorted = await page
      .locator("[data-testid=leaderboard] tbody[data-testid=ranked] tr")
      .evaluateAll((trs) => trs.map((tr) => tr.getAttribute("data-system")));
    expect(sorted).toEqual(["alpha", "alpha", "beta", "gamma"]);
    await go("/?nodes=2");
    expect(await page.locator("[data-testid=leaderboard] tbody[data-testid=ranked] tr").count()).toBe(1);
  });

  it("ranks a 3-trial campaign by its medians: intervals, n, a tie, the ratio to the reference, error bars on the chart", async () => {
    await go("/");
    await page.click(`[data-testid=other-populations] a:has-text("${CAMPAIGN_CLASS}")`);
    await page.waitForURL(/[?&]machine=/);
    expect(await page.textContent("[data-testid=population-shown]")).toBe(`local · standard profile · ${CAMPAIGN_CLASS}`);
    const rows = page.locator("[data-testid=leaderboard] tbody[data-testid=ranked] tr");
    const order = await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute("data-system")));
    expect(order.slice(2)).toEqual(["node-postgres"]);
    expect(order.slice(0, 2).sort()).toEqual(["kappa", "lambda"]);
    // kappa and lambda share rank 1, marked tied; the reference is third
    const ranks = await page
      .locator("[data-testid=leaderboard] tbody[data-testid=ranked] tr td[data-rank]")
      .evaluateAll((tds) => tds.map((td) => td.getAttribute("data-rank")));
    expect(ranks).toEqual(["1", "1", "3"]);
    expect(await page.locator("[data-testid=leaderboard] .badge.tied").count()).toBe(2);
    // the checkout uniform cell: "median [low, high] (coverage), n=3" (three trials: min..max, which holds the median with 75%), and the ratio to the reference
    const figure = await page.locator("tr[data-system=kappa] td[data-figure]").first().getAttribute("data-figure");
    expect(figure).toMatch(/^[\d,]+ \[[\d,]+, [\d,]+\] \(75%\), n=3$/);
    expect(await page.locator("tr[data-system=kappa] td[data-figure]").first().textContent()).toMatch(/n=3/);
    expect(await page.locator("tr[data-system=kappa] [data-ratio]").first().textContent()).toMatch(/^×\d\.\d\d \[\d\.\d\d, \d\.\d\d\] of node-postgres$/);
    expect(await page.textContent("tr[data-system=kappa] [data-trials]")).toBe(" · campaign of 3 trials");
    expect(await page.locator("[data-testid=board-chart] .error-bar").count()).toBe(3);
    await shot("08a-leaderboard-campaign");
    // the population the board opens on holds single runs only: each provisional, none ranked, none ranked against the campaign's medians
    await go("/");
    const single = await page
      .locator("[data-testid=leaderboard] tbody[data-testid=ranked] tr td:nth-child(2)")
      .evaluateAll((tds) => tds.map((td) => td.getAttribute("data-rank")));
    expect(single.length).toBeGreaterThan(0);
    expect(single.every((r) => r === "provisional")).toBe(true);
  });

  it("shows each row's implementation class and guarantees, and hides tuned implementations until asked", async () => {
    await go("/");
    expect(await page.locator("tr[data-system=alpha] [data-implementation=idiomatic]").count()).toBe(2);
    expect(await page.locator("tr[data-system=beta] [data-guarantees]").first().textContent()).toBe("durable · serializable · synchronous");
    expect(await page.locator("tr[data-system=epsilon]").count()).toBe(0);
    expect(await page.textContent("[data-testid=tuned-hidden]")).toContain("1 row of tuned implementations hidden");
    await page.click("[data-testid=tuned-hidden] >> text=show tuned implementations");
    await page.waitForURL(/[?&]tuned=1/);
    await page.waitForSelector("tr[data-system=epsilon] [data-implementation=tuned]");
    expect(await page.locator("[data-testid=tuned-hidden]").count()).toBe(0);
    await shot("08b-leaderboard-tuned");
    // the filter form's switch turns them off again
    await page.uncheck("[data-testid=show-tuned]");
    await page.click("form.filters button[type=submit]");
    await page.waitForURL((url) => !url.search.includes("tuned="));
    expect(await page.locator("tr[data-system=epsilon]").count()).toBe(0);
  });

  it("leaves a tuned implementation out of compare unless asked, with the class shown", async () => {
    await go("/compare?systems=alpha,epsilon");
    expect(await page.textContent("[data-testid=compare-systems] [data-system=epsilon] [data-testid=tuned-hidden]")).toContain("a tuned implementation");
    expect(await page.locator("[data-testid=compare-systems] [data-system=alpha] [data-implementation=idiomatic]").count()).toBe(1);
    expect(await page.textContent("[data-testid=micro-systems]")).not.toContain("Epsilon Tuned");
    await page.click("[data-testid=tuned-hidden] >> text=show tuned implementations");
    await page.waitForSelector("[data-testid=compare-systems] [data-system=epsilon] [data-implementation=tuned]");
    expect(page.url()).toContain("tuned=1");
    expect(await page.textContent("[data-testid=micro-systems]")).toContain("Epsilon Tuned");
    await shot("11b-compare-tuned");
  });

  it("opens a system page with its runs, versions and manifest", async () => {
    await go("/systems/alpha");
    expect(await page.locator("[data-testid=run-history] tbody tr").count()).toBe(2);
    expect(await page.textContent("[data-testid=manifest]")).toContain('"name": "alpha"');
    expect(await page.textContent("[data-testid=system-class]")).toContain("durable · serializable · synchronous");
    await shot("09-system");
  });

  it("takes an unverified account's rating but does not count it, says why, and counts it once the mailed link is followed", async () => {
    await go("/systems/alpha");
    expect(await page.textContent("[data-testid=ratings]")).toBe("Not rated yet.");
    expect(await page.textContent("[data-testid=verify-email-notice]")).toContain("Your address e2e@example.com is not verified");
    await page.selectOption("#programmingModel", "5");
    await page.selectOption("#understandability", "5");
    await page.click("button >> text=Rate");
    expect(await page.textContent("form [role=status]")).toBe(
      "Saved, but not counted yet: it counts once you verify e2e@example.com with the link mailed to it (you can send a new one).",
    );
    await page.waitForSelector("[data-testid=ratings-rule] >> text=1 more not counted because their authors have not verified their email addresses");
    expect(await page.textContent("[data-testid=ratings]")).toBe("Not rated yet.");
    await shot("09b-rating-not-counted");

    // the link the portal mailed at sign-up, as the local SMTP server received it
    const link = linkIn(await mail.next("e2e@example.com"), "/verify-email");
    await page.goto(link, { waitUntil: "networkidle" });
    await page.click("[data-testid=verify-button]");
    expect(await page.textContent("[data-testid=verify-result]")).toBe("e2e@example.com is verified: your ratings count.");
    await shot("09c-email-verified");
    await go("/systems/alpha");
    expect(await page.textContent("[data-testid=ratings]")).toContain("from 1 rating");
    expect(await page.locator("[data-testid=verify-email-notice]").count()).toBe(0);
    // a link works once
    await page.goto(link, { waitUntil: "networkidle" });
    await page.click("[data-testid=verify-button]");
    expect(await page.textContent("[data-testid=verify-result]")).toMatch(/^this verification link was already used/);
  });

  it("throttles sign-in on the real server: 30 wrong passwords at once get 10 answers and 20 refusals with Retry-After", async () => {
    const attempt = (i: number) =>
      fetch(`${server.url}/api/trpc/auth.signIn`, {
        method: "POST",
        headers: { "content-type": "application/json", origin: server.url },
        body: JSON.stringify({ email: "e2e@example.com", password: `wrong password ${i}` }),
      });
    const answers = await Promise.all(Array.from({ length: 30 }, (_, i) => attempt(i)));
    expect(answers.filter((r) => r.status === 401)).toHaveLength(10);
    const refused = answers.filter((r) => r.status === 429);
    expect(refused).toHaveLength(20);
    expect(Number(refused[0]!.headers.get("retry-after"))).toBeGreaterThan(800);
    const body = (await refused[0]!.json()) as { error: { message: string } };
    expect(body.error.message).toMatch(
      /^too many sign-in attempts for this account \(at most 10 in 15 minutes\): try again in \d+ minutes \(at \d\d:\d\d:\d\d UTC\)$/,
    );
  });

  it("opens a run page with results, charts and downloads", async () => {
    const run = await t.db.run.findFirstOrThrow({ where: { system: { slug: "alpha" }, nodes: 1 } });
    await go(`/runs/${run.id}`);
    await page.waitForSelector("[data-testid=run-charts] .recharts-surface");
    expect(await page.locator("[data-testid=run-charts] .recharts-surface").count()).toBeGreaterThan(1);
    // where the target's CPU went: one bar per process
    await page.waitForSelector("[data-chart=cost-by-process] svg .recharts-bar-rectangle");
    expect(await page.locator("[data-chart=cost-by-process]").first().locator(".recharts-bar-rectangle").count()).toBe(3);
    expect(await page.locator("[data-testid=run-results] tbody tr").count()).toBe(4);
    // the setup next to the numbers: where the generator and the target ran, what the storage promised
    expect(await page.textContent("[data-testid=run-setup]")).toBe(
      "load generator on CPU 0-1, target on CPU 2-7 · PostgreSQL 17.10 (the target's own): fsync on, synchronous_commit on, full_page_writes on",
    );
    await shot("10-run");
    const json = await page.request.get(`${server.url}/runs/${run.id}/result.json`);
    expect(json.status()).toBe(200);
    expect(((await json.json()) as { runId: string }).runId).toBe(run.id);
    const csv = await page.request.get(`${server.url}/runs/${run.id}/result.csv`);
    expect(csv.headers()["content-type"]).toContain("text/csv");
    expect((await csv.text()).split("\r\n")[0]).toMatch(/^runId,workload,distribution/);
  });

  it("compares two systems with the charts drawn", async () => {
    await go("/compare?systems=alpha,beta");
    await page.waitForSelector("[data-testid=compare-charts] .recharts-surface");
    const charts = await page.locator("[data-testid=compare-charts] .recharts-surface").count();
    expect(charts).toBeGreaterThanOrEqual(5);
    expect(await page.locator("[data-testid=compare-charts] .recharts-surface path").count()).toBeGreaterThan(10);
    await shot("11-compare");
  });

  it("serves the docs and the badge", async () => {
    await go("/docs");
    expect(await page.textContent("[data-testid=doc-spec] h1")).toContain("sfbench");
    expect(await page.textContent("[data-testid=doc-spec]")).not.toContain("must restate it");
    await go("/docs/api");
    expect(await page.locator("[data-testid=openapi-operations] tbody tr").count()).toBeGreaterThan(5);
    await shot("12-docs-api");
    const badge = await page.request.get(`${server.url}/badge/alpha.svg`);
    expect(badge.headers()["content-type"]).toContain("image/svg+xml");
    expect(await badge.text()).toMatch(/[\d,]+ checkouts\/s/);
  });

  it("refuses a cross-origin POST made with the browser's session cookie", async () => {
    const cookies = await page.context().cookies();
    const session = cookies.find((c) => c.name === "sfbench_session")!;
    expect(session.httpOnly).toBe(true);
    expect(session.sameSite).toBe("Lax");
    const res = await fetch(`${server.url}/api/trpc/tokens.create`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: "https://evil.example", cookie: `sfbench_session=${session.value}` },
      body: JSON.stringify({ name: "csrf" }),
    });
    expect(res.status).toBe(403);
    expect(await t.db.apiToken.count({ where: { name: "csrf" } })).toBe(0);
  });

  it("had no uncaught errors in the page", () => {
    expect(pageErrors).toEqual([]);
  });
});
