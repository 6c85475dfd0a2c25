import { describe, expect, it } from "vitest";
import { parseSpanLine, parseTraceparent, sampledTraceparent } from "../src/span.ts";

describe("span lines", () => {
  const span = {
    sfbench: "span",
    traceId: "a".repeat(32),
    spanId: "b".repeat(16),
    parentId: "c".repeat(16),
    kind: "function",
    entity: "product",
    op: "retractStock",
    key: "p1",
    start: 1,
    end: 2,
  };

  it("parses a span line", () => expect(parseSpanLine(JSON.stringify(span))).toMatchObject({ op: "retractStock" }));
  it("ignores lines that are not spans", () => {
    expect(parseSpanLine("server listening on 8080")).toBeNull();
    expect(parseSpanLine('{"sfbench":"span","broken":')).toBeNull();
    expect(parseSpanLine(JSON.stringify({ ...span, kind: "other" }))).toBeNull();
  });
  it("reads a W3C traceparent", () => {
    expect(parseTraceparent(`00-${"1".repeat(32)}-${"2".repeat(16)}-01`)).toEqual({ traceId: "1".repeat(32), parentId: "2".repeat(16), sampled: true });
    expect(parseTraceparent(`00-${"1".repeat(32)}-${"2".repeat(16)}-00`)).toMatchObject({ sampled: false });
    // other flag bits do not make a request sampled; the sampled bit does with them
    expect(parseTraceparent(`00-${"1".repeat(32)}-${"2".repeat(16)}-02`)).toMatchObject({ sampled: false });
    expect(parseTraceparent(`00-${"1".repeat(32)}-${"2".repeat(16)}-03`)).toMatchObject({ sampled: true });
    expect(parseTraceparent("garbage")).toBeNull();
  });
  it("continues only a sampled trace", () => {
    expect(sampledTraceparent(`00-${"1".repeat(32)}-${"2".repeat(16)}-01`)).toMatchObject({ traceId: "1".repeat(32) });
    expect(sampledTraceparent(`00-${"1".repeat(32)}-${"2".repeat(16)}-00`)).toBeNull();
    expect(sampledTraceparent(undefined)).toBeNull();
    expect(sampledTraceparent("00-zz")).toBeNull();
  });
});
