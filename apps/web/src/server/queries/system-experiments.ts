/**
 * The system page's microbenchmark and resilience results: the latest
 * completed run with microbenchmarks per environment, the latest completed run
 * with resilience results, and which resilience experiments the newest
 * manifest cannot do (core's experimentSupport), each with its reason.
 */
import { experimentSupport, parseManifest, type ResultDocument } from "@sfbench/core";
import { latestResilienceRun, type Db } from "@sfbench/db";
import { microRuns, type MicroRow } from "./micro.ts";
import { storedResult } from "./stored-result.ts";

export interface SystemExperiments {
  micro: MicroRow[];
  resilience: { runId: string; finishedAt: Date; doc: ResultDocument } | null;
  /** experiments the newest known manifest cannot do; null when no manifest is known (only its digest) */
  unsupported: Array<{ experiment: string; reason: string }> | null;
}

export async function getSystemExperiments(db: Db, systemId: string, newestManifest: unknown): Promise<SystemExperiments> {
  const [micro, latest] = await Promise.all([microRuns(db, { systemId }), latestResilienceRun(db, systemId)]);
  const doc = latest ? storedResult(latest.document) : null;
  const parsed = newestManifest ? parseManifest(newestManifest) : null;
  const unsupported = parsed?.ok
    ? Object.entries(experimentSupport(parsed.manifest)).flatMap(([experiment, s]) => (s.supported ? [] : [{ experiment, reason: s.reason }]))
    : null;
  return { micro, resilience: latest && doc ? { runId: latest.runId, finishedAt: latest.finishedAt, doc } : null, unsupported };
}
