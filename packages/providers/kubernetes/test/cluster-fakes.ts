/**
 * Fakes of the Automation API workspace and of the cluster, for the kubernetes
 * provider's unit tests (no Pulumi CLI, no API server here). The fake
 * cluster's runners are real: a TestRun's archive runs in the real k6 with the
 * arguments the program gives the runner pods, against a target on loopback,
 * and its stdout and stderr are the runner's log, as a pod's log would be.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { K6_ARGUMENTS, type RunStackConfigInput } from "@sfbench/infra-pulumi/config";
import type { ClusterApi, PodState } from "../src/cluster/cluster-api.ts";
import { stackName, type RunStack, type RunStackOutputs, type RunStacks } from "../src/cluster/stacks.ts";

/** A Pulumi backend in memory: stacks with or without resources, every call recorded. */
export class FakeStacks implements RunStacks {
  readonly stacks = new Map<string, { resources: boolean; config?: RunStackConfigInput }>();
  readonly calls: string[] = [];
  readonly ups: RunStackConfigInput[] = [];
  failUp?: (config: RunStackConfigInput) => string | undefined;
  /** called with every configuration that carries load (a TestRun) */
  onLoad?: (config: RunStackConfigInput) => void;
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
        if (config.k6) this.onLoad?.(config);
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

export const tempDir = (prefix: string) => mkdtempSync(join(tmpdir(), prefix));

/**
 * A cluster on loopback: the target's Service is `url` (the port-forward), the
 * pods are a list the test scripts, and each TestRun runs its archive in the
 * real k6 (`runnerK6`) with the program's runner arguments; its combined
 * stdout and stderr is the runner pod's log.
 */
export class FakeCluster implements ClusterApi {
  readonly forwards: string[] = [];
  readonly deleted: string[] = [];
  closed = 0;
  pods_: PodState[] = [
    { name: "target-aaa", phase: "Running", ready: true, restarts: 0, deleting: false },
    { name: "target-bbb", phase: "Running", ready: true, restarts: 0, deleting: false },
  ];
  servicePods: PodState[] = [{ name: "postgres-ccc", phase: "Running", ready: true, restarts: 0, deleting: false }];
  cpu = new Map<string, number>([
    ["target-aaa", 10],
    ["target-bbb", 20],
    ["postgres-ccc", 5],
  ]);
  /** a TestRun's stage; default: what its runner's k6 did */
  stageOf?: (testRun: string) => string;
  private readonly runs = new Map<string, { done: boolean; code: number | null; log: string }>();

  constructor(
    readonly url: string,
    readonly runnerK6?: string,
  ) {}

  /** What a TestRun's runner does: the archive under the program's runner arguments (FakeStacks.onLoad calls it). */
  startRunner(config: RunStackConfigInput): void {
    const k6 = config.k6!;
    const name = k6.name ?? "load";
    const state = { done: false, code: null as number | null, log: "" };
    this.runs.set(name, state);
    if (!this.runnerK6) {
      state.done = true;
      state.code = 0;
      state.log = "metric_name,timestamp,metric_value\n";
      return;
    }
    const dir = tempDir("sfbench-runner-");
    const tar = join(dir, "workload.tar");
    writeFileSync(tar, Buffer.from(k6.archiveBase64, "base64"));
    // through a shell's pipe: k6 opens /dev/stdout for its CSV, which a Node stdio socket refuses (ENXIO) and a container's log pipe takes
    const child = spawn("bash", ["-c", 'set -o pipefail; "$0" "$@" | cat', this.runnerK6, "run", tar, ...K6_ARGUMENTS.split(" ")], {
      // the runner's environment wins over the archive's; the in-cluster name of the target is the loopback URL here
      env: { ...process.env, K6_CSV_TIME_FORMAT: "unix_milli", ...k6.env, BASE_URL: this.url },
    });
    // a pod's log takes each stream's lines whole, interleaved by line as they come
    const lines = (stream: NodeJS.ReadableStream) => {
      let rest = "";
      stream.on("data", (d: Buffer) => {
        const text = rest + d.toString();
        const cut = text.lastIndexOf("\n") + 1;
        state.log += text.slice(0, cut);
        rest = text.slice(cut);
      });
      stream.on("end", () => (state.log += rest));
    };
    lines(child.stdout);
    lines(child.stderr);
    child.on("close", (code) => {
      state.code = code;
      state.done = true;
    });
  }

  async testRunStage(_ns: string, testRun: string) {
    if (this.stageOf) return this.stageOf(testRun);
    const r = this.runs.get(testRun);
    if (!r) return undefined;
    return r.done ? (r.code === 0 ? "finished" : "error") : "started";
  }
  async runnerLogs(_ns: string, testRun: string) {
    const r = this.runs.get(testRun);
    return r ? [r.log] : [];
  }
  async forward(ns: string, service: string, port: number) {
    this.forwards.push(`${ns}/${service}:${port}`);
    return { url: this.url, close: () => void this.closed++ };
  }
  async pods(_ns: string, selector: string) {
    return structuredClone(selector.endsWith("=target") ? this.pods_ : this.servicePods);
  }
  async deletePod(_ns: string, pod: string, graceSeconds: number) {
    this.deleted.push(`${pod} grace ${graceSeconds}`);
    // the Deployment makes a new pod in its place, not ready at first
    this.pods_ = this.pods_.map((p) => (p.name === pod ? { name: `${pod}-new`, phase: "Running", ready: false, restarts: 0, deleting: false } : p));
    this.cpu.set(`${pod}-new`, 0);
  }
  async cpuSeconds(_ns: string, pod: string) {
    const cpu = this.cpu.get(pod);
    if (cpu === undefined) throw new Error(`no pod ${pod}`);
    return cpu;
  }
}
