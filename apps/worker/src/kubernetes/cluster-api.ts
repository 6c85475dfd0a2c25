/**
 * What the provider asks the cluster directly (not through Pulumi): a
 * TestRun's stage, its runner pods' logs, and a port-forward to the target
 * for the conformance suite. Behind an interface so tests use a fake; the real
 * one runs kubectl with the worker's kubeconfig.
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

export interface ClusterApi {
  /** the TestRun's status.stage, or undefined before the operator set one */
  testRunStage(namespace: string, testRun: string): Promise<string | undefined>;
  /** the full log (stdout and stderr) of every runner pod of the TestRun, one text per pod */
  runnerLogs(namespace: string, testRun: string): Promise<string[]>;
  /** a local port forwarded to a service port */
  forward(namespace: string, service: string, port: number): Promise<Forward>;
}

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
