/**
 * The k6 workloads, run by the real k6 against the in-memory SPEC-2 target
 * over loopback: exit codes, request counts per step, tags in the CSV output,
 * audit records in the console output, and the state they leave behind.
 */
import { spawn } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm } from "node:fs/promises";
import { createServer, request as httpRequest, Agent, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startMemoryTarget, type MemoryTarget } from "@sfbench/conformance/testing";
import { drawItems } from "../k6/lib/shop.ts";
import { hotProductId, hotProductPrice, maxExponentialDepth, productChooser, productId, productPrice, soldOutProductId } from "../src/distributions.ts";
import { TRACEPARENT, rngFor } from "../src/random.ts";
import { checkoutEnv } from "../src/workload-env.ts";
import { k6Binary } from "./k6-binary.ts";

const K6_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../k6");
const SEED = 7;
const PRODUCTS = 300;
const PREFIX = `t${SEED}`;

// ---- running k6

interface Sample {
  metric: string;
  timestamp: string;
  value: number;
  scenario: string;
  method: string;
  status: string;
  expected: string;
  tags: Record<string, string>;
}

interface K6Run {
  code: number | null;
  stderr: string;
  samples: Sample[];
  /** The parsed `msg` of every console line that is an sfbench record. */
  records: Record<string, unknown>[];
  /** the console output file (console.log/warn of the script) */
  console: string;
}

function parseCsv(text: string): Sample[] {
  const [header, ...lines] = text.trim().split("\n");
  const columns = (header ?? "").split(",");
  const at = (name: string) => columns.indexOf(name);
  const col = {
    metric: at("metric_name"),
    timestamp: at("timestamp"),
    value: at("metric_value"),
    scenario: at("scenario"),
    method: at("method"),
    status: at("status"),
    expected: at("expected_response"),
    extra: at("extra_tags"),
  };
  return lines.map((line) => {
    const f = line.split(",");
    const tags: Record<string, string> = {};
    for (const pair of (f[col.extra] ?? "").split("&")) {
      const eq = pair.indexOf("=");
      if (eq > 0) tags[pair.slice(0, eq)] = pair.slice(eq + 1);
    }
    return {
      metric: f[col.metric] ?? "",
      timestamp: f[col.timestamp] ?? "",
      value: Number(f[col.value]),
      scenario: f[col.scenario] ?? "",
      method: f[col.method] ?? "",
      status: f[col.status] ?? "",
      expected: f[col.expected] ?? "",
      tags,
    };
  });
}

let k6: string;
let workDir: string;
let runs = 0;

async function runK6(script: string, env: Record<string, string | number>): Promise<K6Run> {
  const dir = path.join(workDir, `run-${runs++}`);
  const csv = path.join(dir, "out.csv.gz");
  const consoleFile = path.join(dir, "console.log");
  const args = [
    "run",
    "--quiet",
    "--no-color",
    "--include-system-env-vars=false",
    "--out",
    `csv=${csv}`,
    "--log-format=json",
    `--console-output=${consoleFile}`,
  ];
  for (const [key, value] of Object.entries(env)) args.push("-e", `${key}=${value}`);
  args.push(path.join(K6_DIR, script));
  await mkdir(dir, { recursive: true });
  const child = spawn(k6, args, {
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? os.homedir(), K6_CSV_TIME_FORMAT: "unix_milli", K6_NO_USAGE_REPORT: "true" },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const code = await new Promise<number | null>((resolve, reject) => {
    child.on("error", reject);
    child.on("close", resolve);
  });
  const samples = await readFile(csv).then(
    (gz) => parseCsv(gunzipSync(gz).toString("utf8")),
    () => [],
  );
  const consoleText = await readFile(consoleFile, "utf8").catch(() => "");
  const records = consoleText
    .split("\n")
    .filter((line) => line.includes("sfbench"))
    .map((line) => JSON.parse((JSON.parse(line) as { msg: string }).msg) as Record<string, unknown>);
  return { code, stderr, samples, records, console: consoleText };
}

const requests = (run: K6Run, op: string, scenario?: string) =>
  run.samples.filter((s) => s.metric === "http_reqs" && s.tags.op === op && (scenario === undefined || s.scenario === scenario));
const count = (run: K6Run, metric: string, scenario: string) =>
  run.samples.filter((s) => s.metric === metric && s.scenario === scenario).reduce((sum, s) => sum + s.value, 0);

/**
 * The step's schedule: iterations run plus those k6 dropped (a start it could
 * not keep, all VUs busy on a loaded machine) are within 10% (and 2) of rate x
 * duration; constant-arrival-rate starts one at t=0 and may not start the
 * last. How many were dropped is the machine's share, not the script's; some
 * must have run, or the step says nothing.
 */
function expectSchedule(run: K6Run, done: number, scenario: string, rate: number, seconds: number): void {
  const dropped = count(run, "dropped_iterations", scenario);
  const what = `${done} iterations run and ${dropped} dropped for ${rate}/s x ${seconds}s`;
  const expected = rate * seconds;
  expect(done, what).toBeGreaterThan(0);
  expect(done + dropped, what).toBeGreaterThanOrEqual(Math.floor(expected * 0.9) - 2);
  expect(done + dropped, what).toBeLessThanOrEqual(Math.ceil(expected * 1.1) + 2);
}

async function getJson(base: string, route: string): Promise<{ status: number; body: unknown }> {
  const res = await fetch(base + route);
  return { status: res.status, body: await res.json() };
}

// ---- proxies in front of the target: to see the headers k6 sent, and to lose answers

/** What a proxy does with one request: pass it on, close the connection unanswered, or close it once the target has answered. */
type Fate = "forward" | "drop" | "drop-after-target";

interface Proxy {
  url: string;
  close(): Promise<void>;
}

async function startProxy(target: string, fateOf: (req: IncomingMessage) => Fate): Promise<Proxy> {
  const upstream = new URL(target);
  const agent = new Agent({ keepAlive: true });
  const server: Server = createServer((req, res) => {
    const fate = fateOf(req);
    if (fate === "drop") return void req.socket.destroy();
    const forward = httpRequest({ host: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers: req.headers, agent }, (answer) => {
      if (fate === "drop-after-target") {
        answer.resume();
        return void answer.on("end", () => req.socket.destroy());
      }
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    forward.on("error", () => res.destroy());
    req.pipe(forward);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
        agent.destroy();
      }),
  };
}

async function startRecorder(target: string): Promise<Proxy & { traceparents: string[] }> {
  const traceparents: string[] = [];
  const proxy = await startProxy(target, (req) => {
    traceparents.push(String(req.headers.traceparent));
    return "forward";
  });
  return { ...proxy, traceparents };
}

/**
 * Loses the answer to the first PATCH of each product in `products`: the
 * connection closes before the target sees the write, or for `applied` after
 * the target applied it, as when a target loses the connection while answering.
 */
async function startDroppingProxy(target: string, products: Set<string>, applied: string): Promise<Proxy & { dropped: string[] }> {
  const dropped: string[] = [];
  const proxy = await startProxy(target, (req) => {
    const product = decodeURIComponent(/^\/products\/([^/?]+)$/.exec(req.url ?? "")?.[1] ?? "");
    if (req.method !== "PATCH" || !products.has(product) || dropped.includes(product)) return "forward";
    dropped.push(product);
    return product === applied ? "drop-after-target" : "drop";
  });
  return { ...proxy, dropped };
}

// ---- the tests

let target: MemoryTarget;

beforeAll(async () => {
  k6 = await k6Binary();
  workDir = await mkdtemp(path.join(os.tmpdir(), "sfbench-k6-"));
  target = await startMemoryTarget();
}, 60_000);

afterAll(async () => {
  await target?.close();
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

describe("k6 workloads against the in-memory target", () => {
  const common = () => ({ BASE_URL: target.url, SEED, PRODUCTS, PRODUCT_PREFIX: PREFIX });

  it("seed creates exactly PRODUCTS products with the seeded prices, and can be re-run", async () => {
    const run = await runK6("seed.ts", common());
    expect(run.code, run.stderr).toBe(0);
    expect(requests(run, "seed-product").filter((s) => s.method === "PATCH")).toHaveLength(PRODUCTS);
    expect(run.records.filter((r) => r.kind === "product")).toHaveLength(PRODUCTS);
    for (const index of [0, 1, 150, PRODUCTS - 1]) {
      const { status, body } = await getJson(target.url, `/products/${productId(PREFIX, index)}`);
      expect(status).toBe(200);
      expect(body).toEqual({ id: productId(PREFIX, index), price: productPrice(SEED, index), stock: 1_000_000_000 });
    }
    expect((await getJson(target.url, `/products/${productId(PREFIX, PRODUCTS)}`)).status).toBe(404);

    // A second seed tops stock up instead of adding another 10^9.
    const again = await runK6("seed.ts", common());
    expect(again.code, again.stderr).toBe(0);
    expect(again.records.every((r) => r.stockAdded === 0 && r.stockBefore === 1_000_000_000)).toBe(true);
    expect((await getJson(target.url, `/products/${productId(PREFIX, 3)}`)).body).toMatchObject({ stock: 1_000_000_000 });
  }, 30_000);

  it("seed fails loudly when the target does not answer", async () => {
    const run = await runK6("seed.ts", { ...common(), BASE_URL: "http://127.0.0.1:9", PRODUCTS: 20 });
    expect(run.code).toBe(108); // aborted by the script
    expect(run.stderr).toContain("could not be written");
  }, 30_000);

  it("seed tries a product again when a write goes unanswered, and adds only the stock still missing", async () => {
    // Two products lose their first PATCH: one before the target sees it, one after the target applied it.
    const lostBefore = productId(`${PREFIX}r`, 3);
    const lostAfter = productId(`${PREFIX}r`, 7);
    const proxy = await startDroppingProxy(target.url, new Set([lostBefore, lostAfter]), lostAfter);
    try {
      const run = await runK6("seed.ts", { ...common(), BASE_URL: proxy.url, PRODUCTS: 12, PRODUCT_PREFIX: `${PREFIX}r` });
      expect(run.code, run.stderr).toBe(0);
      expect(proxy.dropped.sort()).toEqual([lostBefore, lostAfter].sort());
      const records = run.records.filter((r) => r.kind === "product");
      expect(records).toHaveLength(12);
      for (const r of records) {
        // what the record says the seed added is what the product holds: the audit's stock balance
        expect((r.stockBefore as number) + (r.stockAdded as number)).toBe(1_000_000_000);
        expect(r.tries).toBe(r.product === lostBefore || r.product === lostAfter ? 2 : 1);
        const { body } = await getJson(target.url, `/products/${r.product as string}`);
        expect(body).toMatchObject({ stock: 1_000_000_000 });
      }
      expect(run.console).toContain(`seed: product ${lostBefore} not written on try 1 of 5`);
    } finally {
      await proxy.close();
    }
  }, 30_000);

  it("a bad environment stops k6 before any request, naming the variables", async () => {
    const run = await runK6("checkout.ts", { BASE_URL: target.url, SEED: "x", STEPS: "[]" });
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain("SEED must be an integer");
    expect(run.stderr).toContain("STEPS must be a non-empty JSON array");
    expect(run.samples.filter((s) => s.metric === "http_reqs")).toHaveLength(0);
  }, 30_000);

  it("checkout runs each step at its rate, tags every request and logs one audit record per checkout", async () => {
    const recorder = await startRecorder(target.url);
    try {
      const steps = [
        { rate: 40, duration: 2 },
        { rate: 80, duration: 2 },
      ];
      const run = await runK6("checkout.ts", { ...common(), BASE_URL: recorder.url, STEPS: JSON.stringify(steps) });
      expect(run.code, run.stderr).toBe(0);

      steps.forEach((step, i) => {
        const scenario = `step_${i}`;
        expectSchedule(run, requests(run, "checkout", scenario).length, scenario, step.rate, step.duration);
      });

      const reqs = run.samples.filter((s) => s.metric === "http_reqs");
      expect(new Set(reqs.map((s) => s.tags.op))).toEqual(new Set(["create-user", "add-credits", "create-cart", "add-to-cart", "checkout"]));
      expect(reqs.every((s) => /^step_\d$/.test(s.scenario) && s.status === "200" && s.expected === "true" && s.method !== "")).toBe(true);
      expect(reqs.every((s) => /^\d{13}$/.test(s.timestamp))).toBe(true); // K6_CSV_TIME_FORMAT=unix_milli
      const checkouts = requests(run, "checkout");
      expect(checkouts.every((s) => Number(s.tags.cart_size) >= 2 && Number(s.tags.cart_size) <= 8)).toBe(true);
      expect(run.samples.some((s) => s.metric === "http_req_duration" && s.tags.op === "checkout" && s.value > 0)).toBe(true);

      // Every request carried a valid, fresh traceparent.
      expect(recorder.traceparents).toHaveLength(reqs.length);
      expect(recorder.traceparents.every((h) => TRACEPARENT.test(h))).toBe(true);
      expect(new Set(recorder.traceparents).size).toBe(recorder.traceparents.length);

      const audits = run.records.filter((r) => r.kind === "checkout");
      expect(audits).toHaveLength(checkouts.length);
      // each logged first as sent, with the same plan and no answer
      const sent = run.records.filter((r) => r.kind === "checkout-sent");
      expect(sent.map((r) => r.cart).sort()).toEqual(audits.map((r) => r.cart).sort());
      for (const r of sent) expect(r.status).toBeUndefined();
      for (const r of audits) {
        const items = r.items as [string, number][];
        expect(r).toMatchObject({ sfbench: "audit", status: 200, credits: 1_000_000_000, total: r.expectedTotal });
        expect(new Set(items.map(([id]) => id)).size).toBe(items.length);
        expect(items.every(([id, amount]) => id.startsWith(`${PREFIX}-`) && amount >= 1 && amount <= 4)).toBe(true);
        expect(r.expectedTotal).toBe(items.reduce((sum, [id, amount]) => sum + productPrice(SEED, Number(id.slice(PREFIX.length + 1))) * amount, 0));
        expect(typeof r.orderId).toBe("string");
        expect(recorder.traceparents.some((h) => h.includes(r.traceId as string))).toBe(true);
      }
      // k6 drew exactly what Node draws from rngFor(SEED, scenario, iteration): the two engines agree.
      const config = checkoutEnv({
        BASE_URL: target.url,
        SEED: String(SEED),
        PRODUCTS: String(PRODUCTS),
        PRODUCT_PREFIX: PREFIX,
        STEPS: JSON.stringify(steps),
      });
      const choose = productChooser({ n: PRODUCTS, distribution: config.distribution, s: config.zipfS, seed: SEED });
      for (const r of audits) {
        const rng = rngFor(SEED, r.scenario as string, r.iteration as number);
        const items = drawItems(rng, config, choose, PRODUCTS, (i) => ({ id: productId(PREFIX, i), price: productPrice(SEED, i) }));
        expect(r.items).toEqual(items.map((item) => [item.id, item.amount]));
      }
      expect(new Set(audits.map((r) => `${r.scenario as string}/${r.iteration as number}`)).size).toBe(audits.length);

      // The audit record matches the target's state.
      const sample = audits[0]!;
      expect((await getJson(target.url, `/users/${sample.user as string}`)).body).toMatchObject({ credits: 1_000_000_000 - (sample.total as number) });
    } finally {
      await recorder.close();
    }
  }, 40_000);

  it("logs a checkout as sent before its request, so one that k6 cuts at the graceful stop is still known to the audit", async () => {
    // a target that serves checkouts one after another, 3 s each: k6 ends the step's iterations 1 s after its 1 s,
    // in the middle of their checkouts, which the target goes on to finish
    const slow = await startMemoryTarget({ checkoutLineMs: 3000 });
    try {
      const seeded = await runK6("seed.ts", { ...common(), BASE_URL: slow.url });
      expect(seeded.code, seeded.stderr).toBe(0);
      const run = await runK6("checkout.ts", { ...common(), BASE_URL: slow.url, STEPS: JSON.stringify([{ rate: 2, duration: 1 }]), GRACEFUL_STOP_S: 1 });
      expect(run.code, run.stderr).toBe(0);
      expect(run.records.filter((r) => r.kind === "checkout")).toEqual([]);
      const sent = run.records.filter((r) => r.kind === "checkout-sent");
      expect(sent.length).toBeGreaterThanOrEqual(1);
      for (const r of sent) {
        const cart = () => getJson(slow.url, `/shopping-carts/${r.cart as string}`);
        await expect.poll(async () => (await cart()).body, { timeout: 15_000, interval: 250 }).toMatchObject({ checkedOut: true });
      }
    } finally {
      await slow.close();
    }
  }, 60_000);

  it("populate then analytics: freq-items at the step rate, tagged with shape, top and depth", async () => {
    const populate = await runK6("populate.ts", { ...common(), POPULATE: 300, VUS: 8, USERS: 4 });
    expect(populate.code, populate.stderr).toBe(0);
    expect(requests(populate, "checkout").filter((s) => s.status === "200")).toHaveLength(300);
    // a record per checkout, for the analytics cell's audit of the graph; its users are shared
    const populated = populate.records.filter((r) => r.kind === "checkout");
    expect(populated).toHaveLength(300);
    expect(populated.every((r) => r.status === 200)).toBe(true);
    expect(populate.records.filter((r) => r.kind === "checkout-sent")).toHaveLength(300);
    expect(new Set(populated.map((r) => r.user)).size).toBe(4);
    const graph = (await getJson(target.url, `/products/${productId(PREFIX, 0)}/freq-items?top=5`)).body as string[];
    expect(graph.length).toBeGreaterThan(0);

    // paced for a target that many new entities at once would overwhelm: 24 checkouts at most 12/s by 4 VUs, so
    // some VU checks out 6 times, a third of a second apart (less what its first took): about 1.67 s from the
    // first checkout to the last, however fast the target answers (unpaced, a tenth of that)
    const paced = await runK6("populate.ts", { ...common(), POPULATE: 24, VUS: 4, USERS: 2, RATE: 12 });
    expect(paced.code, paced.stderr).toBe(0);
    const times = requests(paced, "checkout").map((s) => Number(s.timestamp));
    expect(times).toHaveLength(24);
    expect(Math.max(...times) - Math.min(...times)).toBeGreaterThanOrEqual(1200);

    const run = await runK6("analytics.ts", { ...common(), STEPS: JSON.stringify([{ rate: 50, duration: 3 }]) });
    expect(run.code, run.stderr).toBe(0);
    const queries = requests(run, "freq-items");
    expectSchedule(run, queries.length, "step_0", 50, 3);
    expect(queries.every((s) => s.status === "200" && s.method === "GET")).toBe(true);
    expect(new Set(queries.map((s) => s.tags.shape))).toEqual(new Set(["linear", "fan-out", "exponential"]));
    for (const { tags } of queries) {
      const top = Number(tags.top);
      const depth = Number(tags.depth);
      if (tags.shape === "linear") expect(top === 1 && depth >= 1 && depth <= 20).toBe(true);
      if (tags.shape === "fan-out") expect(depth === 2 && top >= 2 && top <= 20).toBe(true);
      if (tags.shape === "exponential") expect(top >= 2 && top <= 10 && depth >= 3 && depth <= maxExponentialDepth(top)).toBe(true);
    }
  }, 40_000);

  it("contention fails the planned share of checkouts with the planned 409 and puts all stock back", async () => {
    const prefix = `${PREFIX}c`;
    const rate = 150;
    const seconds = 5;
    const run = await runK6("contention.ts", { BASE_URL: target.url, SEED, PRODUCT_PREFIX: prefix, STEPS: JSON.stringify([{ rate, duration: seconds }]) });
    expect(run.code, run.stderr).toBe(0);
    const checkouts = requests(run, "checkout");
    expectSchedule(run, checkouts.length, "step_0", rate, seconds);
    expect(checkouts.every((s) => s.expected === "true" && (s.status === "200" || s.status === "409"))).toBe(true);

    const audits = run.records.filter((r) => r.kind === "checkout");
    expect(audits).toHaveLength(checkouts.length);
    for (const r of audits) {
      if (r.planned === "ok") expect(r).toMatchObject({ status: 200, total: r.expectedTotal, credits: r.expectedTotal });
      else expect(r).toMatchObject({ status: 409, error: r.planned });
    }
    const share = audits.filter((r) => r.status === 409).length / audits.length;
    expect(share).toBeGreaterThan(1 - 0.85 * 0.85 - 0.05);
    expect(share).toBeLessThan(1 - 0.85 * 0.85 + 0.05);

    // Stock: only completed orders took any (compensation put back the rest).
    const sold = new Map<string, number>();
    for (const r of audits) if (r.status === 200) for (const [id, amount] of r.items as [string, number][]) sold.set(id, (sold.get(id) ?? 0) + amount);
    for (let i = 0; i < 10; i++) {
      const id = hotProductId(prefix, i);
      expect((await getJson(target.url, `/products/${id}`)).body).toEqual({ id, price: hotProductPrice(SEED, i), stock: 1_000_000_000 - (sold.get(id) ?? 0) });
    }
    expect((await getJson(target.url, `/products/${soldOutProductId(prefix)}`)).body).toMatchObject({ stock: 0 });
  }, 40_000);
});
