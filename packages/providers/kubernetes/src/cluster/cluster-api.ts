/**
 * What the provider asks the cluster directly (not through Pulumi): a
 * TestRun's stage, its runner pods' logs, a port-forward to the target (the
 * engine's verify, seed checks and audit), the run's pods, deleting one (the
 * fault experiments' kill) and a pod's CPU time from its cgroup (the cost).
 * Behind an interface so unit tests use a fake; the real one runs kubectl
 * with the worker's kubeconfig.
 */
import { execFile, spawn } from "node:child_process";
import { runnerSelector } from "@sfbench/infra-pulumi/config";

/** k6-operator's TestRun stages (status.stage); finished and error are final, stopped too */
export type TestRunStage = "initialization" | "initialized" | "created" | "started" | "stopped" | "finished" | "error";
export const FINAL_STAGES: readonly string[] = ["finished", "error", "stopped"];

export interface Forward {
  /** http://127.0.0.1:<port> reaching the service */
  url: string;
  close(): void;
}

/** A pod of the run as `kubectl get pods` reports it. */
export interface PodState {
  name: string;
  /** Pending, Running, Succeeded, Failed, Unknown */
  phase: string;
  /** every container ready */
  ready: boolean;
  /** restarts of its containers, summed */
  restarts: number;
  /** set while the pod is being deleted */
  deleting: boolean;
  /** the last termination's reason of a container that restarted (OOMKilled, Error, ...) */
  lastTermination?: string;
}

export interface ClusterApi {
  /** the TestRun's status.stage, or undefined before the operator set one */
  testRunStage(namespace: string, testRun: string): Promise<string | undefined>;
  /** the full log (stdout and stderr) of every runner pod of the TestRun, one text per pod */
  runnerLogs(namespace: string, testRun: string): Promise<string[]>;
  /** a local port forwarded to a service port */
  forward(namespace: string, service: string, port: number): Promise<Forward>;
  /** the pods a label selector picks, by name */
  pods(namespace: string, selector: string): Promise<PodState[]>;
  /** deletes a pod: grace 0 kills its processes at once (SIGKILL), a grace period sends SIGTERM first */
  deletePod(namespace: string, pod: string, graceSeconds: number): Promise<void>;
  /** the CPU seconds a pod's containers have used, from its cgroup (v2 cpu.stat, else v1 cpuacct) */
  cpuSeconds(namespace: string, pod: string): Promise<number>;
}

/** k8s `kubectl get pods -o json`, the fields read */
interface PodList {
  items: Array<{
    metadata: { name: string; deletionTimestamp?: string };
    status?: {
      phase?: string;
      containerStatuses?: Array<{ ready?: boolean; restartCount?: number; lastState?: { terminated?: { reason?: string } } }>;
    };
  }>;
}

/** Reads `kubectl get pods -o json`. */
export function parsePodList(json: string): PodState[] {
  const list = JSON.parse(json) as PodList;
  return list.items.map((p) => {
    const statuses = p.status?.containerStatuses ?? [];
    const last = statuses.map((c) => c.lastState?.terminated?.reason).find(Boolean);
    return {
      name: p.metadata.name,
      phase: p.status?.phase ?? "Unknown",
      ready: statuses.length > 0 && statuses.every((c) => c.ready === true),
      restarts: statuses.reduce((n, c) => n + (c.restartCount ?? 0), 0),
      deleting: p.metadata.deletionTimestamp !== undefined,
      ...(last ? { lastTermination: last } : {}),
    };
  });
}

/**
 * A pod's CPU seconds from what `cat` of its cgroup files printed: cgroup v2's
 * cpu.stat (`usage_usec N`), or v1's cpuacct.usage (nanoseconds).
 */
export function parseCgroupCpu(text: string, pod: string): number {
  const v2 = /^usage_usec (\d+)$/m.exec(text);
  if (v2) return Number(v2[1]) / 1e6;
  const v1 = /^(\d+)\s*$/m.exec(text);
  if (v1) return Number(v1[1]) / 1e9;
  throw new Error(`${pod}: its cgroup gave no CPU time (neither cpu.stat's usage_usec nor cpuacct.usage): ${JSON.stringify(text.slice(0, 120))}`);
}

/** reads whichever of the two exists; the target image needs a shell with cat */
const CGROUP_CPU = "cat /sys/fs/cgroup/cpu.stat 2>/dev/null || cat /sys/fs/cgroup/cpuacct/cpuacct.usage";

export interface KubectlOptions {
  kubectl: string;
  kubeconfigPath: string;
  context?: string;
}

function run(opts: KubectlOptions, args: string[], maxBuffer = 1 << 30): Promise<string> {
  const full = ["--kubeconfig", opts.kubeconfigPath, ...(opts.context ? ["--context", opts.context] : []), ...args];
  return new Promise((resolve, reject) => {
    execFile(opts.kubectl, full, { maxBuffer, encoding: "utf8" }, (err, stdout, stderr) => {
      if (err) reject(new Error(`kubectl ${args.join(" ")}: ${(stderr || err.message).trim().split("\n").slice(-3).join(" ")}`));
      else resolve(stdout);
    });
  });
}

export function kubectlApi(opts: KubectlOptions): ClusterApi {
  return {
    async testRunStage(namespace, testRun) {
      const out = await run(opts, ["get", "testruns.k6.io", testRun, "-n", namespace, "-o", "jsonpath={.status.stage}"]);
      return out.trim() || undefined;
    },
    async runnerLogs(namespace, testRun) {
      const names = (await run(opts, ["get", "pods", "-n", namespace, "-l", runnerSelector(testRun), "-o", "jsonpath={.items[*].metadata.name}"]))
        .trim()
        .split(/\s+/)
        .filter(Boolean);
      // one pod at a time: `kubectl logs -l` would interleave the pods' lines
      const logs: string[] = [];
      for (const pod of names.sort()) logs.push(await run(opts, ["logs", "-n", namespace, pod, "--tail=-1"]));
      return logs;
    },
    async pods(namespace, selector) {
      return parsePodList(await run(opts, ["get", "pods", "-n", namespace, "-l", selector, "-o", "json"]));
    },
    async deletePod(namespace, pod, graceSeconds) {
      await run(opts, ["delete", "pod", pod, "-n", namespace, `--grace-period=${graceSeconds}`, ...(graceSeconds === 0 ? ["--force"] : []), "--wait=false"]);
    },
    async cpuSeconds(namespace, pod) {
      return parseCgroupCpu(await run(opts, ["exec", "-n", namespace, pod, "--", "sh", "-c", CGROUP_CPU]), pod);
    },
    forward(namespace, service, port) {
      const child = spawn(
        opts.kubectl,
        [
          "--kubeconfig",
          opts.kubeconfigPath,
          ...(opts.context ? ["--context", opts.context] : []),
          "port-forward",
          "-n",
          namespace,
          `svc/${service}`,
          `:${port}`,
          "--address",
          "127.0.0.1",
        ],
        {
          stdio: ["ignore", "pipe", "pipe"],
        },
      );
      return new Promise<Forward>((resolve, reject) => {
        let out = "";
        const timer = setTimeout(() => fail(new Error(`kubectl port-forward svc/${service}: no forwarding after 30 s: ${out.trim()}`)), 30_000);
        const fail = (e: Error) => {
          clearTimeout(timer);
          child.kill("SIGTERM");
          reject(e);
        };
        const onData = (d: Buffer) => {
          out += d.toString();
          const m = /Forwarding from 127\.0\.0\.1:(\d+)/.exec(out);
          if (m) {
            clearTimeout(timer);
            resolve({ url: `http://127.0.0.1:${m[1]}`, close: () => void child.kill("SIGTERM") });
          }
        };
        child.stdout.on("data", onData);
        child.stderr.on("data", onData);
        child.on("error", (e) => fail(new Error(`could not start ${opts.kubectl}: ${e.message}`)));
        child.on("exit", (code) => fail(new Error(`kubectl port-forward svc/${service} ended (exit code ${code}): ${out.trim()}`)));
      });
    },
  };
}
