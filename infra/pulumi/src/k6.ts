/**
 * Distributed open-model load through the k6-operator: the workload's
 * `k6 archive` (the same scripts as local runs, with their modules) in a
 * ConfigMap, and a TestRun with `parallelism` runner pods; the operator splits
 * the arrival rate between them with execution segments. Runners write their
 * raw samples as CSV to stdout and their console (the audit records) as JSON
 * log lines to stderr; the worker collects both from the runner pods' logs,
 * splits them by their first character (`{` is a log line) and analyses the
 * CSV with the same code as a local run. Runners prefer nodes without
 * a target pod, so the generator does not share the target's cores.
 */
import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { ARCHIVE_FILE, K6_ARGUMENTS } from "./config.ts";

export interface K6LoadArgs {
  /** the phase: the TestRun is named after it, its ConfigMap k6-<phase> */
  phase: string;
  namespace: pulumi.Input<string>;
  archiveBase64: string;
  parallelism: number;
  image: string;
  env: Record<string, string>;
  targetUrl: pulumi.Input<string>;
  targetLabels: Record<string, string>;
  runLabels: Record<string, string>;
}

export class K6Load extends pulumi.ComponentResource {
  readonly testRunName: string;

  constructor(name: string, args: K6LoadArgs, opts?: pulumi.ComponentResourceOptions) {
    super("sfbench:run:K6Load", name, {}, opts);
    this.testRunName = args.phase;
    const labels = { ...args.runLabels, "app.kubernetes.io/name": "k6", "app.kubernetes.io/component": "load" };
    const script = new k8s.core.v1.ConfigMap(
      `${name}-script`,
      {
        metadata: { name: `k6-${args.phase}`, namespace: args.namespace, labels },
        binaryData: { [ARCHIVE_FILE]: args.archiveBase64 },
      },
      { parent: this },
    );
    const env = pulumi.output(args.targetUrl).apply((base) =>
      Object.entries({ ...args.env, BASE_URL: base, K6_CSV_TIME_FORMAT: "unix_milli", K6_NO_USAGE_REPORT: "true" })
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([n, value]) => ({ name: n, value })),
    );
    new k8s.apiextensions.CustomResource(
      `${name}-testrun`,
      {
        apiVersion: "k6.io/v1alpha1",
        kind: "TestRun",
        metadata: { name: this.testRunName, namespace: args.namespace, labels },
        spec: {
          parallelism: args.parallelism,
          // no `cleanup: "post"`: the runner pods (and their logs, the raw samples) must outlive the test until the worker read them; the stack's destroy removes them
          // not the operator's `separate`: it replaces runner.affinity with its own (runners apart, targets ignored)
          separate: false,
          script: { configMap: { name: script.metadata.name, file: ARCHIVE_FILE } },
          arguments: K6_ARGUMENTS,
          runner: {
            image: args.image,
            env,
            metadata: { labels },
            affinity: {
              podAntiAffinity: {
                preferredDuringSchedulingIgnoredDuringExecution: [
                  // off the target's nodes, so the generator does not take the target's cores
                  { weight: 100, podAffinityTerm: { labelSelector: { matchLabels: args.targetLabels }, topologyKey: "kubernetes.io/hostname" } },
                  // and apart from each other (k6-operator labels every runner of a TestRun k6_cr=<name>, runner=true)
                  {
                    weight: 50,
                    podAffinityTerm: { labelSelector: { matchLabels: { k6_cr: this.testRunName, runner: "true" } }, topologyKey: "kubernetes.io/hostname" },
                  },
                ],
              },
            },
          },
        },
      },
      { parent: this },
    );
    this.registerOutputs({ testRunName: this.testRunName });
  }
}
