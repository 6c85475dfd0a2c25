/**
 * What both places make of one k6 invocation of the engine as a k6-operator
 * TestRun (a real cluster's, cluster/generator.ts; the played one's runner
 * pods, kube-play/generator.ts): its name and how many runners share it.
 */
import { createHash } from "node:crypto";
import type { K6Invocation } from "@sfbench/core";

/** the program's limit on a TestRun's name (infra/pulumi config.ts k6.name) */
const MAX_NAME = 40;
/** closed-loop setup scripts: their thresholds count the whole (seed: every product), so one runner runs them */
const ONE_RUNNER: readonly K6Invocation["script"][] = ["seed", "populate"];

/** A DNS label from a raw file's stem, at most 40 characters: the TestRun's name; a cut name keeps a hash of the whole, so two stems stay apart. */
export function testRunName(stem: string): string {
  const label = stem
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, "-")
    .replace(/^-+|-+$/g, "");
  if (label.length <= MAX_NAME) return label || "load";
  const hash = createHash("sha256").update(stem).digest("hex").slice(0, 6);
  return `${label.slice(0, MAX_NAME - hash.length - 1).replace(/-+$/, "")}-${hash}`;
}

/** The runners of an invocation: the place's parallelism for open-model load, one for the setup scripts. */
export function runnersFor(script: K6Invocation["script"], parallelism: number): number {
  return ONE_RUNNER.includes(script) ? 1 : parallelism;
}
