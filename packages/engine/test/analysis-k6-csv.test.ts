import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { afterAll, describe, expect, it } from "vitest";
import { parseExtraTags, parseK6Csv, parseK6Timestamp, splitCsvLine, streamK6Csv, type K6Sample } from "../src/analysis/k6-csv.ts";

/** What k6 v1.8.1 writes with systemTags [status, method, scenario, expected_response, error_code] and K6_CSV_TIME_FORMAT=unix_milli. */
const FIXTURE = [
  "metric_name,timestamp,metric_value,error_code,expected_response,method,scenario,status,extra_tags,metadata",
  "http_reqs,1795327571589,1.000000,1212,false,POST,step_0,0,op=checkout&cart_size=3,",
  "http_req_duration,1795327571589,0.000000,1212,false,POST,step_0,0,cart_size=3&op=checkout,",
  "http_req_blocked,1795327571589,0.000000,1212,false,POST,step_0,0,cart_size=3&op=checkout,",
  "checks,1795327571590,0.000000,,,,step_0,,,",
  "iterations,1795327571590,1.000000,,,,step_0,,,",
  "http_req_duration,1795327571657,17.876811,,true,POST,step_0,200,cart_size=3&op=checkout,",
  'http_req_duration,1795327571701,12.5,,true,GET,step_1,409,"op=freq-items&note=a,b=c",',
  "dropped_iterations,1795327571864,1.000000,,,,step_1,,,",
  "",
].join("\r\n");

const dir = mkdtempSync(join(tmpdir(), "sfbench-k6csv-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function collect(path: string, metrics?: string[]): Promise<{ samples: K6Sample[]; lines: number }> {
  const samples: K6Sample[] = [];
  const { lines } = await streamK6Csv(path, (s) => samples.push(s), { metrics });
  return { samples, lines };
}

describe("k6 CSV reader", () => {
  it("streams a gzipped file and maps columns by the header", async () => {
    const path = join(dir, "out.csv.gz");
    writeFileSync(path, gzipSync(FIXTURE));
    const { samples, lines } = await collect(path);
    expect(lines).toBe(9);
    expect(samples).toHaveLength(8);
    expect(samples[0]).toEqual({
      metric: "http_reqs",
      timeMs: 1795327571589,
      value: 1,
      status: 0,
      scenario: "step_0",
      expected: false,
      tags: { error_code: "1212", method: "POST", op: "checkout", cart_size: "3" },
    });
    expect(samples[3]).toMatchObject({ metric: "checks", value: 0, status: null, expected: null, tags: {} });
    expect(samples[6]).toMatchObject({ status: 409, expected: true, tags: { op: "freq-items", note: "a,b=c", method: "GET" } });
  });

  it("reads an uncompressed file the same way, whatever its name", async () => {
    const path = join(dir, "plain.csv.gz");
    writeFileSync(path, FIXTURE);
    const gz = join(dir, "zipped.csv");
    writeFileSync(gz, gzipSync(FIXTURE));
    expect((await collect(path)).samples).toEqual((await collect(gz)).samples);
  });

  it("parses only the metrics asked for", async () => {
    const path = join(dir, "filter.csv.gz");
    writeFileSync(path, gzipSync(FIXTURE));
    const { samples } = await collect(path, ["http_req_duration", "dropped_iterations"]);
    expect(samples.map((s) => s.metric)).toEqual(["http_req_duration", "http_req_duration", "http_req_duration", "dropped_iterations"]);
  });

  it("handles lines split across chunks of a large file", async () => {
    const rows = Array.from(
      { length: 50_000 },
      (_, i) => `http_req_duration,${1795327571000 + i},${i}.5,,true,POST,step_0,200,op=checkout&cart_size=${i % 7},`,
    );
    const path = join(dir, "big.csv.gz");
    writeFileSync(path, gzipSync([FIXTURE.split("\r\n")[0], ...rows].join("\n")));
    let [n, sum] = [0, 0];
    await streamK6Csv(path, (s) => {
      n++;
      sum += s.value;
    });
    expect(n).toBe(50_000);
    expect(sum).toBe((49_999 * 50_000) / 2 + 25_000);
  });

  it("refuses a file that is not k6 CSV", async () => {
    const path = join(dir, "bad.csv");
    writeFileSync(path, "a,b,c\n1,2,3\n");
    await expect(collect(path)).rejects.toThrow(/not a k6 CSV header/);
    writeFileSync(path, "");
    await expect(collect(path)).rejects.toThrow(/empty file/);
  });

  it("parses text in memory too", () => expect(parseK6Csv(FIXTURE, { metrics: ["iterations"] })).toHaveLength(1));
});

describe("k6 CSV fields", () => {
  it("reads every K6_CSV_TIME_FORMAT as epoch milliseconds", () => {
    expect(parseK6Timestamp("1795327672")).toBe(1795327672000);
    expect(parseK6Timestamp("1795327672498")).toBe(1795327672498);
    expect(parseK6Timestamp("1795327672556669")).toBeCloseTo(1795327672556.669, 3);
    expect(parseK6Timestamp("1795327672743485392")).toBeCloseTo(1795327672743.485, 3);
    expect(parseK6Timestamp("2026-11-22T06:07:52Z")).toBe(Date.UTC(2026, 10, 22, 6, 7, 52));
    expect(parseK6Timestamp("2026-11-22T06:07:52.839220739Z")).toBe(Date.UTC(2026, 10, 22, 6, 7, 52, 839));
    expect(() => parseK6Timestamp("yesterday")).toThrow(/not a k6 timestamp/);
  });

  it("splits quoted CSV fields", () => {
    expect(splitCsvLine('a,"b,c","d""e",,f')).toEqual(["a", "b,c", 'd"e', "", "f"]);
    expect(splitCsvLine('a,"x"')).toEqual(["a", "x"]);
    expect(splitCsvLine('"x",')).toEqual(["x", ""]);
    expect(() => splitCsvLine('a,"open')).toThrow(/unterminated/);
  });

  it("reads extra_tags in any order", () => {
    expect(parseExtraTags("top=3&depth=2&shape=linear")).toEqual({ top: "3", depth: "2", shape: "linear" });
    expect(parseExtraTags("")).toEqual({});
  });
});
