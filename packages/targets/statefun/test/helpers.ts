/**
 * Test harness: the target is built and started by @sfbench/provider-local
 * (the same build and launcher a run uses) and spoken to over HTTP only, with
 * the helpers every target folder shares (@sfbench/target-suite). What is
 * StateFun's own: the JVM among the launcher's children.
 */
import { readFileSync } from "node:fs";

export const TARGET = "statefun";

/** The pid of the launcher's child whose command line contains `needle` (the JVM: "dev.sfbench.statefun.Main"). */
export function childPid(launcherPid: number, needle: string): number {
  const children = readFileSync(`/proc/${launcherPid}/task/${launcherPid}/children`, "utf8").trim().split(/\s+/).map(Number);
  for (const pid of children) {
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, "utf8").replace(/\0/g, " ");
    if (cmdline.includes(needle)) return pid;
  }
  throw new Error(`no child of ${launcherPid} runs ${needle}`);
}
