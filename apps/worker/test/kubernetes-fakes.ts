/** Fakes of the Automation API workspace and of the cluster, for the kubernetes provider's unit tests (no Pulumi CLI, no cluster here). */
import type { RunStackConfigInput } from "@sfbench/infra-pulumi/config";
import type { ClusterApi } from "../src/kubernetes/cluster-api.ts";
import { stackName, type RunStack, type RunStackOutputs, type RunStacks } from "../src/kubernetes/stacks.ts";

/** A Pulumi backend in memory: stacks with or without resources, every call recorded. */
export class FakeStacks implements RunStacks {
  readonly stacks = new Map<string, { resources: boolean; config?: RunStackConfigInput }>();
  readonly calls: string[] = [];
  readonly ups: RunStackConfigInput[] = [];
  failUp?: (config: RunStackConfigInput) => string | undefined;
  failDestroy = 0;

  async open(runId: string): Promise<RunStack> {
    const name = stackName(runId);
    if (!this.stacks.has(name)) this.stacks.set(name, { resources: false });
    return {
      name,
      up: async (config) => {
        this.calls.push(`up ${name} ${config.k6?.name ?? "-"}`);
        this.ups.push(config);
        // a failed update leaves what it created so far: destroy must still run
        this.stacks.set(name, { resources: true, config });
        const why = this.failUp?.(config);
        if (why) throw new Error(why);
        const ns = `sfbench-${config.runId}`;
        const out: RunStackOutputs = {
          namespace: ns,
          targetUrl: `http://target.${ns}.svc.cluster.local:${config.target.port}`,
          testRun: config.k6 ? (config.k6.name ?? "load") : undefined,
          storage: { postgres: { instance: "dedicated", fsync: "on", synchronous_commit: "on", full_page_writes: "on", volume: "persistent" } },
          replicas: config.nodes,
          resources: { cpu: "3500m", memory: "12288Mi" },
        };
        return out;
      },
      destroy: async () => {
        this.calls.push(`destroy ${name}`);
        if (this.failDestroy > 0) {
          this.failDestroy--;
          throw new Error("the cluster is unreachable");
        }
        const s = this.stacks.get(name);
        if (s) s.resources = false;
      },
    };
  }

  async list(): Promise<string[]> {
    return [...this.stacks.keys()];
  }

  async remove(name: string): Promise<void> {
    this.calls.push(`remove ${name}`);
    const s = this.stacks.get(name);
    if (s?.resources) throw new Error(`stack ${name} still has resources`);
    this.stacks.delete(name);
  }
}

export const CSV_HEADER = "metric_name,timestamp,metric_value,error_code,expected_response,method,scenario,status,extra_tags,metadata";

/**
 * k6 CSV of an open-model ramp as runners write it: per step, `rate`
 * iterations a second, each a setup request and the measured checkout; steps
 * at or above `failFrom` answer 500.
 */
export function rampCsv(rates: readonly number[], stepS: number, failFrom: number, startMs = 1_700_000_000_000): string {
  const lines = [CSV_HEADER];
  let t0 = startMs;
  rates.forEach((rate, i) => {
    for (let n = 0; n < rate * stepS; n++) {
      const begin = t0 + Math.floor((n * 1000) / rate);
      const status = rate >= failFrom ? 500 : 200;
      lines.push(`http_req_duration,${begin + 3},3,,true,POST,step_${i},200,op=create-user,`);
      lines.push(`http_req_duration,${begin + 15},12,${status === 500 ? "1500" : ""},${status === 200},POST,step_${i},${status},op=checkout&cart_size=3,`);
      lines.push(`iteration_duration,${begin + 15},15,,,,step_${i},,,`);
      lines.push(`iterations,${begin + 15},1,,,,step_${i},,,`);
    }
    t0 += stepS * 1000;
  });
  return lines.join("\n") + "\n";
}

/** A cluster whose TestRuns end in a scripted stage, with runner logs per TestRun. */
export class FakeCluster implements ClusterApi {
  readonly forwards: string[] = [];
  closed = 0;
  stageOf: (testRun: string) => string = () => "finished";
  logsOf: (testRun: string) => string[] = () => [`${CSV_HEADER}\n`];

  async testRunStage(_ns: string, testRun: string) {
    return this.stageOf(testRun);
  }
  async runnerLogs(_ns: string, testRun: string) {
    return this.logsOf(testRun);
  }
  async forward(ns: string, service: string, port: number) {
    this.forwards.push(`${ns}/${service}:${port}`);
    return { url: "http://127.0.0.1:1", close: () => void this.closed++ };
  }
}
