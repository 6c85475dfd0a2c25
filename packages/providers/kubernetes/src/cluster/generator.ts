/**
 * The engine's k6 invocations as k6-operator TestRuns in the run's namespace:
 * each invocation (seed, populate, one step of a knee search, a stable phase)
 * is the script's `k6 archive` with its environment, BASE_URL pointed at the
 * target's in-cluster Service, put in the stack by `pulumi up` as a TestRun of
 * `parallelism` runner pods. When the operator says it finished, the runners'
 * logs come back through kubectl and are split into the same raw files as a
 * local k6 run writes (runner-log.ts), so the engine analyses them unchanged.
 * The runners run off the target's nodes (the program's anti-affinity), so no
 * process on this machine is the generator: there is no pid to sample and no
 * live figures while a TestRun runs.
 */
import { join } from "node:path";
import type { K6Invocation, K6Outcome, LoadGenerator } from "@sfbench/core";
import type { RunStackConfigInput } from "@sfbench/infra-pulumi/config";
import { FINAL_STAGES, type ClusterApi } from "./cluster-api.ts";
import { runnersFor, testRunName } from "../testrun.ts";
import { writeRunnerOutput } from "./runner-log.ts";
import type { RunStack } from "./stacks.ts";

/** The k6 image the runners use; its tag is the k6 version the result records. */
export const K6_RUNNER_IMAGE = "grafana/k6:1.8.1";
/** a phase without arrival-rate steps (seed, populate) may take up to the populate cap */
const UNSTEPPED_S = 3600;

export interface ClusterGeneratorOptions {
  stack: RunStack;
  cluster: ClusterApi;
  /** the stack's configuration now (its node count may have grown) */
  base: () => RunStackConfigInput;
  namespace: string;
  /** the target's in-cluster URL (the program's targetUrl output) */
  targetUrl: string;
  parallelism: number;
  /** k6 archive of the script with env, base64 */
  archive: (script: K6Invocation["script"], env: Record<string, string>) => Promise<string>;
  /** TestRun status polling, ms (default 5000) */
  pollMs?: number;
  /** extra time a TestRun may take beyond its planned load (pulls, scheduling), ms (default 15 min) */
  startupMarginMs?: number;
  log?: (line: string) => void;
}

/** Seconds of load the invocation plans: its STEPS, or the cap of a phase without steps. */
export function plannedSeconds(env: Record<string, string>): number {
  if (!env.STEPS) return UNSTEPPED_S;
  const steps = JSON.parse(env.STEPS) as Array<{ duration: number }>;
  return steps.reduce((s, st) => s + st.duration, 0);
}

export function clusterGenerator(o: ClusterGeneratorOptions): LoadGenerator {
  return async (inv: K6Invocation): Promise<K6Outcome> => {
    const started = performance.now();
    const csv = join(inv.outDir, `${inv.name}.csv.gz`);
    const consoleFile = join(inv.outDir, `${inv.name}.console.log`);
    const env = { ...inv.env, BASE_URL: o.targetUrl };
    const name = testRunName(inv.name);
    const archiveBase64 = await o.archive(inv.script, env);
    const out = await o.stack.up({ ...o.base(), k6: { name, parallelism: runnersFor(inv.script, o.parallelism), archiveBase64, env, image: K6_RUNNER_IMAGE } });
    const testRun = out.testRun ?? name;
    const deadline = performance.now() + plannedSeconds(env) * 1000 + (o.startupMarginMs ?? 15 * 60_000);
    let stage: string | undefined;
    for (;;) {
      if (inv.signal?.aborted) return { exitCode: null, csv, console: consoleFile, stderrTail: "interrupted", wallS: (performance.now() - started) / 1000 };
      stage = await o.cluster.testRunStage(o.namespace, testRun).catch((e: Error) => (o.log?.(`TestRun ${testRun}: ${e.message}`), undefined));
      if (stage && FINAL_STAGES.includes(stage)) break;
      if (performance.now() > deadline)
        return {
          exitCode: null,
          csv,
          console: consoleFile,
          stderrTail: `the TestRun ${testRun} did not finish in time (stage ${stage ?? "unknown"} after its planned load plus the start-up margin)`,
          wallS: (performance.now() - started) / 1000,
        };
      await new Promise((r) => setTimeout(r, o.pollMs ?? 5000));
    }
    writeRunnerOutput(await o.cluster.runnerLogs(o.namespace, testRun), csv, consoleFile);
    const finished = stage === "finished";
    return {
      exitCode: finished ? 0 : 1,
      csv,
      console: consoleFile,
      stderrTail: finished ? "" : `the TestRun ${testRun} ended in stage "${stage}" (its runners' logs are kept in ${consoleFile})`,
      wallS: (performance.now() - started) / 1000,
    };
  };
}
