import { describe, expect, it } from "vitest";
import { badgeSvg } from "../src/server/badge-svg.ts";
import { cellsCsv, seriesCsv, toCsv } from "../src/server/downloads/csv.ts";
import { fixtureResult } from "../fixtures/result-doc.ts";

const target = { name: "csv", system: "CSV", version: "0.1.0", manifestDigest: `sha256:${"a".repeat(64)}` };

describe("CSV downloads", () => {
  it("has one row per cell with the tables' numbers, and none for an invalid cell", () => {
    const doc = fixtureResult({ target, size: "small", invalidCell: "analytics/zipf" });
    const lines = cellsCsv(doc).trimEnd().split("\r\n");
    expect(lines).toHaveLength(5);
    expect(lines[0]).toMatch(/^runId,workload,distribution,valid,invalidReason,seed,maxMovingAvg10s,sustainableRate/);
    const invalid = lines.find((l) => l.includes("analytics,zipf"))!;
    expect(invalid).toMatch(/,false,the load generator was the bottleneck \(92% of its cores busy\),1,,,,,,,,,,,,,,,,$/);
  });

  it("has one row per second of each valid cell", () => {
    const doc = fixtureResult({ target, size: "small" });
    const rows = seriesCsv(doc).trimEnd().split("\r\n");
    expect(rows.length - 1).toBe(doc.cells.reduce((n, c) => n + c.series.length, 0));
  });

  it("quotes separators and defuses spreadsheet formulas", () => {
    expect(toCsv(["a", "b"], [["x,y", '=HYPERLINK("evil")']])).toBe('a,b\r\n"x,y","\'=HYPERLINK(""evil"")"\r\n');
  });
});

describe("badge", () => {
  it("escapes its text as XML", () => {
    const svg = badgeSvg("sfbench", '<script>alert("x")</script>', "#000");
    expect(svg).not.toContain("<script>");
    expect(svg).toContain("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;");
  });
});
