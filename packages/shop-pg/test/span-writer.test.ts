/** The span writer (SPEC 3): span lines leave in chunks, off the request path. */
import { describe, expect, it } from "vitest";
import { parseSpanLine, type Span } from "@sfbench/core";
import { SpanWriter } from "../src/index.ts";

describe("the span writer", () => {
  const span = (n: number): Span => ({
    sfbench: "span",
    traceId: "a".repeat(32),
    spanId: n.toString(16).padStart(16, "0"),
    parentId: null,
    kind: "function",
    entity: "product",
    op: "x",
    key: `p${n}`,
    start: n,
    end: n + 1,
  });

  it("writes nothing while a request is in flight: one chunk per interval, every span a line", async () => {
    const chunks: string[] = [];
    const w = new SpanWriter({ write: (c) => chunks.push(c) }, 30);
    w.write(span(1));
    w.write(span(2));
    expect(chunks).toEqual([]);
    await new Promise((r) => setTimeout(r, 80));
    expect(chunks).toHaveLength(1);
    expect(
      chunks[0]!
        .split("\n")
        .filter(Boolean)
        .map((l) => parseSpanLine(l)?.key),
    ).toEqual(["p1", "p2"]);
    w.write(span(3));
    w.flush(); // close() flushes what is left
    expect(chunks).toHaveLength(2);
    w.flush();
    expect(chunks).toHaveLength(2);
  });

  it("writes at once when 4096 spans are waiting", async () => {
    const chunks: string[] = [];
    const w = new SpanWriter({ write: (c) => chunks.push(c) }, 60_000);
    for (let i = 0; i < 4096; i++) w.write(span(i));
    expect(chunks).toHaveLength(1);
    expect(chunks[0]!.split("\n").filter(Boolean)).toHaveLength(4096);
  });
});
