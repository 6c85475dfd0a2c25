/**
 * What comes back from a cluster run's k6 runners, checked with the real k6
 * (the one the product uses, @sfbench/services k6Path): a runner's log is its
 * stdout (CSV samples) and stderr (JSON console lines) in one stream, as
 * `kubectl logs` returns it; the worker splits it, merges runners into one
 * CSV and the local analysis reads it. And the phase archives: `k6 archive`
 * of the real workload scripts with the phase's environment baked in.
 */
import { spawn } from "node:child_process";
import { execFileSync } from "node:child_process";
import { createServer, type Server } from "node:http";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { k6Path } from "@sfbench/services";
import { K6_ARGUMENTS } from "@sfbench/infra-pulumi/config";
import { aggregateK6, parseK6Csv } from "@sfbench/engine";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { k6Archive } from "../src/cluster/archive.ts";
import { RunnerLogError, splitRunnerLog, writeRunnerOutput } from "../src/cluster/runner-log.ts";
import { tempDir } from "./cluster-fakes.ts";

let k6: string;
let server: Server;
let base: string;

beforeAll(async () => {
  k6 = await k6Path();
  server = createServer((req, res) => {
    res.writeHead(req.url?.startsWith("/orders/checkout") ? 200 : 404, { "content-type": "application/json" });
    res.end('"ok"');
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
}, 600_000);

afterAll(() => new Promise<void>((r) => server.close(() => r())));

/** A tiny open-model script in the workloads' conventions: an op tag, step_<i> scenarios, one audit-like console line per iteration. */
const SCRIPT = `
import http from "k6/http";
export const options = {
  systemTags: ["status", "method", "scenario", "expected_response", "error_code"],
  scenarios: {
    step_0: { executor: "constant-arrival-rate", rate: 20, timeUnit: "1s", duration: "1s", preAllocatedVUs: 5, maxVUs: 20 },
  },
};
export default function () {
  const r = http.post(__ENV.BASE_URL + "/orders/checkout", "{}", { tags: { op: "checkout", cart_size: "2" } });
  console.log(JSON.stringify({ sfbench: "audit", kind: "probe", status: r.status }));
}
`;

/**
 * Runs k6 the way a runner pod does (the TestRun's arguments) and returns its
 * stdout and stderr interleaved, as one pod log. Through `| cat`: a
 * container's stdout is a pipe (k6 cannot open /dev/stdout on the socket
 * Node would give it).
 */
function runnerLog(dir: string, name: string): Promise<string> {
  const file = join(dir, `${name}.js`);
  writeFileSync(file, SCRIPT);
  return new Promise((resolve, reject) => {
    // the command line k6-operator builds (pkg/resources/jobs/runner.go): run --quiet, the TestRun's arguments, the script, the instance tags
    const args = [
      "run",
      "--quiet",
      ...K6_ARGUMENTS.split(" "),
      "--no-usage-report",
      "-e",
      `BASE_URL=${base}`,
      file,
      "--tag",
      `instance_id=${name}`,
      "--tag",
      `job_name=load-${name}`,
    ];
    // stdout through a pipe, as in a container (k6 opens /dev/stdout for its CSV, which a socket refuses); stderr apart
    const child = spawn("sh", ["-c", '"$0" "$@" | cat', k6, ...args], {
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: dir, K6_CSV_TIME_FORMAT: "unix_milli" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    // as the container runtime keeps a pod's log: each stream read apart and framed into whole lines, the
    // lines of both in the order they ended (one pipe for both, `2>&1`, interleaves them within a line)
    let log = "";
    const partial = { stdout: "", stderr: "" };
    for (const stream of ["stdout", "stderr"] as const) {
      child[stream].on("data", (d: Buffer) => {
        const parts = (partial[stream] + d.toString()).split("\n");
        partial[stream] = parts.pop()!;
        for (const line of parts) log += line + "\n";
      });
      child[stream].on("end", () => (log += partial[stream] ? partial[stream] + "\n" : ""));
    }
    child.on("error", reject);
    child.on("close", (code) => (code === 0 && !log.includes('"level":"error"') ? resolve(log) : reject(new Error(`k6 exited ${code}: ${log.slice(-500)}`))));
  });
}

describe("a k6 runner's log", () => {
  it("splits into the CSV samples and the console's JSON lines, and the local analysis reads the merged CSV of two runners", async () => {
    const dir = tempDir("sfbench-runner-");
    const [a, b] = await Promise.all([runnerLog(dir, "a"), runnerLog(dir, "b")]);
    const one = splitRunnerLog(a);
    expect(one.header.startsWith("metric_name,timestamp,metric_value")).toBe(true);
    expect(one.console.length).toBeGreaterThanOrEqual(15);
    expect(one.console.every((l) => JSON.parse(l) !== null)).toBe(true);
    expect(one.console.some((l) => (JSON.parse(l) as { msg?: string }).msg?.includes('"sfbench":"audit"'))).toBe(true);
    const samples = parseK6Csv([one.header, ...one.samples].join("\n"));
    expect(samples.filter((s) => s.metric === "http_req_duration" && s.tags.op === "checkout").length).toBeGreaterThanOrEqual(15);

    const merged = writeRunnerOutput([a, b], join(dir, "ramp.csv.gz"), join(dir, "ramp.console.log"));
    expect(merged.runners).toBe(2);
    expect(
      gunzipSync(readFileSync(merged.csvFile))
        .toString()
        .split("\n")
        .filter((l) => l.startsWith("metric_name,")),
    ).toHaveLength(1);
    const agg = await aggregateK6(merged.csvFile, { op: "checkout", stepRates: [40], stepDurationsS: [1] });
    // two runners of 20/s each: the merged step carries both runners' requests
    expect(agg.overall.successful).toBe(
      splitRunnerLog(a)
        .samples.concat(splitRunnerLog(b).samples)
        .filter((l) => l.startsWith("http_req_duration,") && l.includes("op=checkout")).length,
    );
    expect(agg.overall.successful).toBeGreaterThanOrEqual(30);
    expect(agg.steps[0]!.scenario).toBe("step_0");
    expect(readFileSync(merged.consoleFile, "utf8").split("\n").filter(Boolean).length).toBe(one.console.length + splitRunnerLog(b).console.length);
  }, 120_000);

  it("is refused with the reason when it has no CSV header (k6 did not start, or the kubelet rotated the log away)", () => {
    expect(() => splitRunnerLog('{"level":"error","msg":"could not initialize"}\n', "runner 1")).toThrow(RunnerLogError);
    expect(() => splitRunnerLog("http_req_duration,1700000000000,12,200\n", "runner 1")).toThrow(/no k6 CSV header.*containerLogMaxSize/);
    expect(() => writeRunnerOutput([], "/nonexistent/x.csv.gz", "/nonexistent/x.log")).toThrow(/no runner pods/);
  });
});

describe("a phase's k6 archive", () => {
  it("bundles the real workload script with the phase's environment, which k6 evaluates into the step scenarios", async () => {
    const steps = [
      { rate: 40, duration: 2 },
      { rate: 120, duration: 2 },
    ];
    const b64 = await k6Archive(k6, "checkout", {
      BASE_URL: "http://target.sfbench-x.svc.cluster.local:8080",
      SEED: "7",
      PRODUCTS: "100",
      PRODUCT_PREFIX: "rabc",
      DISTRIBUTION: "uniform",
      STEPS: JSON.stringify(steps),
    });
    const dir = tempDir("sfbench-archive-");
    writeFileSync(join(dir, "a.tar"), Buffer.from(b64, "base64"));
    const meta = JSON.parse(execFileSync("tar", ["-xOf", join(dir, "a.tar"), "metadata.json"], { encoding: "utf8" })) as {
      env: Record<string, string>;
      options: { scenarios: Record<string, { rate: number; duration: string }> };
    };
    expect(meta.env).toMatchObject({ BASE_URL: "http://target.sfbench-x.svc.cluster.local:8080", SEED: "7", DISTRIBUTION: "uniform" });
    expect(Object.keys(meta.options.scenarios).sort()).toEqual(["step_0", "step_1"]);
    expect(meta.options.scenarios.step_1).toMatchObject({ rate: 120, duration: "2s" });
  }, 60_000);

  it("fails with k6's reason for a bad environment, naming the script", async () => {
    await expect(k6Archive(k6, "checkout", { BASE_URL: "not a url", SEED: "1", STEPS: "[]" })).rejects.toThrow(/k6 archive checkout\.ts failed/);
  }, 60_000);
});
