/**
 * Server rendering of the chart components with react-dom/server. Recharts
 * draws its SVG only in the browser (ResponsiveContainer measures first), so
 * these tests check the frames: every <figure data-chart>, captions, legends,
 * empty states and notes. The portal's browser test checks the SVGs.
 */
import type { ReactElement } from "react";
import { renderToString } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { buildCompareData, buildRunData, CompareCharts, RunCharts } from "../index.ts";
import { BREAKDOWN, cell, doc, ONE_TO_THOUSAND } from "./fixtures.ts";

const COMPARE_CHARTS = [
  "throughput",
  "latency-boxplot",
  "latency-ecdf",
  "latency-cart-size",
  "analytics-shape",
  "analytics-top-depth",
  "breakdown",
  "cost",
  "scalability",
  "loc",
  "ratings",
];

/** server HTML without the comments React puts between adjacent text pieces */
function render(element: ReactElement): string {
  return renderToString(element).replaceAll("<!-- -->", "");
}

function figures(html: string): string[] {
  return [...html.matchAll(/<figure data-chart="([^"]+)"/g)].map((m) => m[1]!);
}

/** the HTML of one figure */
function figure(html: string, name: string): string {
  const start = html.indexOf(`<figure data-chart="${name}"`);
  expect(start, `figure ${name}`).toBeGreaterThanOrEqual(0);
  return html.slice(start, html.indexOf("</figure>", start));
}

describe("CompareCharts", () => {
  const a = doc({ name: "alpha" });
  const b = doc({
    name: "beta",
    cells: [
      cell("checkout", "uniform", { latencies: ONE_TO_THOUSAND.map((v) => v * 3), breakdown: BREAKDOWN }),
      cell("analytics", "uniform", { valid: false, invalidReason: "k6 ran out of VUs" }),
    ],
  });
  const failed = doc({ failed: { stage: "verify", message: "conformance failed" } });
  const data = buildCompareData({
    systems: [
      {
        slug: "alpha",
        name: "Alpha",
        doc: a,
        loc: { TypeScript: { app: 300, gateway: 50 } },
        ratings: { programmingModel: 4, understandability: 3, count: 2 },
      },
      { slug: "evil", name: "<script>alert(1)</script>", doc: b, loc: { Go: { app: 200, gateway: 80 } } },
      { slug: "gamma", name: "Gamma", doc: failed },
    ],
  });
  const html = render(<CompareCharts data={data} />);

  it("renders every chart in a <figure data-chart> with a caption", () => {
    expect(figures(html)).toEqual(COMPARE_CHARTS);
    for (const name of COMPARE_CHARTS) expect(figure(html, name)).toMatch(/<figcaption[^>]*><strong>[^<]+<\/strong>/);
  });

  it("gives charts a fixed height and a responsive width", () => {
    expect(figure(html, "throughput")).toContain('class="sfb-chart-box" style="width:100%;height:300px"');
    expect(figure(html, "throughput")).toContain("recharts-responsive-container");
  });

  it("renders names as text (XSS-safe)", () => {
    expect(html).not.toContain("<script>alert(1)</script>");
    expect(html).toContain("&lt;script&gt;alert(1)&lt;/script&gt;");
  });

  it("says why the failed run is not plotted", () => {
    expect(html).toContain('data-excluded="true"');
    expect(html).toMatch(/Gamma<\/strong>: run [0-9a-f-]+ failed at stage &quot;verify&quot;: conformance failed/);
  });

  it("shows empty states instead of numbers where data is missing", () => {
    expect(figure(html, "scalability")).toContain('data-empty="true"');
    expect(figure(html, "scalability")).toMatch(/two or more node counts/);
    // default cell checkout/uniform: beta has spans, alpha does not
    expect(figure(html, "breakdown")).not.toContain('data-empty="true"');
    expect(figure(html, "breakdown")).toMatch(/Alpha<\/strong>: no spans for this run/);
    // analytics/uniform is invalid for beta: its reason, not its numbers
    expect(figure(html, "analytics-shape")).toMatch(/invalid: k6 ran out of VUs/);
  });

  it("legend with system names where the chart cannot show them itself", () => {
    expect(figure(html, "latency-boxplot")).toContain('data-legend="systems"');
    expect(figure(html, "latency-boxplot")).toContain("Alpha");
    expect(figure(html, "loc")).toContain('data-legend="systems"');
  });

  it("offers the cells in a select, checkout/uniform first", () => {
    expect(html).toMatch(/<select[^>]*data-cell-select="true"/);
    expect(html).toMatch(/<option value="checkout\/uniform" selected="">/);
  });

  it("honours an initial cell", () => {
    const zipfOnly = render(<CompareCharts data={data} initialCell="analytics/uniform" />);
    expect(zipfOnly).toMatch(/<option value="analytics\/uniform" selected="">/);
    expect(figure(zipfOnly, "breakdown")).toContain('data-empty="true"');
  });

  it("nothing but failed runs: one explanation, still every figure", () => {
    const only = render(<CompareCharts data={buildCompareData({ systems: [{ slug: "g", name: "G", doc: failed }] })} />);
    expect(only).toContain("Nothing to plot");
    expect(figures(only)).toEqual(COMPARE_CHARTS);
  });
});

describe("RunCharts", () => {
  it("renders the run's charts", () => {
    const html = render(<RunCharts data={buildRunData(doc({ cells: [cell("checkout", "uniform"), cell("analytics", "zipf")] }))} />);
    expect(figures(html)).toEqual(["ramp", "run-series", "run-latency-series", "latency-boxplot", "latency-ecdf", "latency-cart-size", "breakdown"]);
    expect(figure(html, "ramp")).toMatch(/step 3 \(200\/s\) not sustainable: completed 60%/);
    expect(figure(html, "breakdown")).toMatch(/no spans for this run/);
  });

  it("says beside the ramp what the target used of its cores at the knee, where the run measured it", () => {
    const d = doc({ cells: [cell("checkout", "uniform")] });
    d.cells[0]!.maxThroughput!.kneeCores = 0.62;
    d.environment.cpuSplit = { generator: "0", target: "1" };
    expect(figure(render(<RunCharts data={buildRunData(d)} />), "ramp")).toContain("at the knee the target used <strong>0.62 of 1 core (62%)</strong>");
    expect(figure(render(<RunCharts data={buildRunData(doc({ cells: [cell("checkout", "uniform")] }))} />), "ramp")).not.toContain("at the knee");
  });

  it("analytics cell: shape and top/depth instead of cart size", () => {
    const html = render(<RunCharts data={buildRunData(doc({ cells: [cell("analytics", "zipf")] }))} />);
    expect(figures(html)).toEqual([
      "ramp",
      "run-series",
      "run-latency-series",
      "latency-boxplot",
      "latency-ecdf",
      "analytics-shape",
      "analytics-top-depth",
      "breakdown",
    ]);
  });

  it("splits the target's CPU by process where the run measured it, largest first", () => {
    const split = cell("checkout", "uniform");
    split.cost = { ...split.cost!, cpuByProcess: { "node gateway/main.ts": 1, "restate-server": 3, "node app/main.ts": 1 } };
    const html = render(<RunCharts data={buildRunData(doc({ cells: [split] }))} />);
    expect(figures(html)).toContain("cost-by-process");
    const items = [...figure(html, "cost-by-process").matchAll(/<li>([^<]+)<\/li>/g)].map((m) => m[1]);
    expect(items).toEqual(["restate-server: 3 core-s (60 %)", "node app/main.ts: 1 core-s (20 %)", "node gateway/main.ts: 1 core-s (20 %)"]);
    // a document without the split (a container's cgroup counted the CPU, or an older run): no figure, no guess
    expect(figures(render(<RunCharts data={buildRunData(doc({ cells: [cell("checkout", "uniform")] }))} />))).not.toContain("cost-by-process");
  });

  it("a failed run: its error, no figure", () => {
    const html = render(<RunCharts data={buildRunData(doc({ failed: { stage: "seed", message: "target <down>" } }))} />);
    expect(figures(html)).toEqual([]);
    expect(html).toContain('data-run-failed="true"');
    expect(html).toContain("target &lt;down&gt;");
  });

  it("an invalid cell: its reason, no figure", () => {
    const html = render(
      <RunCharts data={buildRunData(doc({ cells: [cell("checkout", "uniform", { valid: false, invalidReason: "generator saturated" })] }))} />,
    );
    expect(figures(html)).toEqual([]);
    expect(html).toMatch(/data-invalid="true".*generator saturated/);
  });
});
