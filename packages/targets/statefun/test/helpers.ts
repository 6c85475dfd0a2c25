/**
 * Test harness: the target is built and started by @sfbench/provider-local
 * (the same build and launcher a run uses) and spoken to over HTTP only, with
 * the helpers every target folder shares (@sfbench/target-suite). What is
 * StateFun's own: span lines in one log, and the JVM among the launcher's children.
 */
import { readFileSync } from "node:fs";
import { parseSpanLine, type Span } from "@sfbench/core";

export const TARGET = "statefun";

/** The span lines of one trace in the target's log (the gateway's and the JVM's). */
export function spansOf(logFile: string, traceId: string): Span[] {
  return readFileSync(logFile, "utf8")
    .split("\n")
    .map(parseSpanLine)
    .filter((s): s is Span => s !== null && s.traceId === traceId);
}

/** The pid of the launcher's child whose command line contains `needle` (the JVM: "dev.sfbench.statefun.Main"). */
export function childPid(launcherPid: number, needle: string): number {
  const children = readFileSync(`/proc/${launcherPid}/task/${launcherPid}/children`, "utf8").trim().split(/\s+/).map(Number);
  for (const pid of children) {
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, "utf8").replace(/\0/g, " ");
    if (cmdline.includes(needle)) return pid;
  }
  throw new Error(`no child of ${launcherPid} runs ${needle}`);
}
