/**
 * Test harness: the target is built and started by @sfbench/provider-local
 * (the same Maven build and start command a run uses) and spoken to over
 * HTTP only, with the helpers every target folder shares
 * (@sfbench/target-suite). What is Pekko's own: its members' span lines.
 */
import { existsSync, readFileSync } from "node:fs";
import { parseSpanLine, type Span } from "@sfbench/core";
import { nodeLogs } from "@sfbench/provider-local";

export const TARGET = "pekko";

/** The span lines of one trace in the logs of every node of the running target. */
export function spansOf(traceId: string): Span[] {
  return nodeLogs(TARGET)
    .filter((f) => existsSync(f))
    .flatMap((f) => readFileSync(f, "utf8").split("\n"))
    .map(parseSpanLine)
    .filter((s): s is Span => s !== null && s.traceId === traceId);
}
