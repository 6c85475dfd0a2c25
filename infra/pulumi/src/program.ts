/**
 * The Pulumi program of one run: everything in a namespace named after the
 * run id, so `pulumi destroy` of the run's stack (or, if all else failed,
 * deleting the namespace) removes every resource of the run.
 *
 * Used as an inline program by the worker's kubernetes provider through the
 * Automation API (one stack per run id) and unit-tested with Pulumi's mocks.
 */
import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { RunStackConfig, runNamespace, type RunStackConfigInput } from "./config.ts";
import { K6Load } from "./k6.ts";
import { targetPodResources, type MachineTypeName } from "./machine.ts";
import { InClusterServices, storageSettings } from "./services.ts";
import { TargetWorkload } from "./target.ts";

export interface RunStackOutputs {
  namespace: pulumi.Output<string>;
  targetUrl: pulumi.Output<string>;
  /** the k6-operator TestRun, when the stack carries load */
  testRun: string | undefined;
  /** what "durable" meant in this run (recorded in the result's environment) */
  storage: Record<string, Record<string, string>>;
  replicas: number;
  resources: { cpu: string; memory: string };
}

export function runProgram(input: RunStackConfigInput): RunStackOutputs {
  const config = RunStackConfig.parse(input);
  const provider = new k8s.Provider("cluster", {
    kubeconfig: config.cluster.kubeconfig,
    ...(config.cluster.kind === "kubeconfig" && config.cluster.context ? { context: config.cluster.context } : {}),
    deleteUnreachable: true,
  });
  const opts = { provider };
  const runLabels = { "app.kubernetes.io/part-of": "sfbench", "sfbench.dev/run": config.runId.toLowerCase() };
  const ns = new k8s.core.v1.Namespace("run", { metadata: { name: runNamespace(config.runId), labels: runLabels } }, opts);
  const namespace = ns.metadata.name;
  const services = [...new Set([...config.target.services, ...(config.target.tracing ? (["kafka"] as const) : [])])];
  const svc = new InClusterServices("services", { namespace, services, durable: config.durable, runLabels }, { ...opts, dependsOn: [ns] });
  const resources = targetPodResources(config.machineType as MachineTypeName);
  const target = new TargetWorkload(
    "target",
    {
      namespace,
      name: config.target.name,
      image: config.target.image,
      port: config.target.port,
      health: config.target.health,
      replicas: config.nodes,
      resources,
      env: { ...config.target.env, ...svc.env, SFBENCH_TRACE: config.target.tracing ? "1" : "0" },
      runLabels,
    },
    { ...opts, dependsOn: [svc] },
  );
  const load = config.k6
    ? new K6Load(
        "k6",
        {
          phase: config.k6.name,
          namespace,
          archiveBase64: config.k6.archiveBase64,
          parallelism: config.k6.parallelism,
          image: config.k6.image,
          env: config.k6.env,
          targetUrl: target.url,
          targetLabels: target.labels,
          runLabels,
        },
        { ...opts, dependsOn: [target] },
      )
    : undefined;
  return {
    namespace,
    targetUrl: target.url,
    testRun: load?.testRunName,
    storage: storageSettings(services, config.durable),
    replicas: config.nodes,
    resources,
  };
}
