/**
 * The configuration of one run's stack: which cluster, how many nodes of
 * which size, which target image, which services, and the k6 load. One stack
 * per run id; the worker's kubernetes provider builds it from the run row and
 * the target manifest, the operator's stack config supplies the cluster.
 */
import { SERVICES } from "@sfbench/core";
import { z } from "zod";
import { MACHINE_TYPES } from "./machine.ts";

/** a DNS-1123 label: Kubernetes names of namespaces, services and labels */
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

export const ClusterConfig = z.union([
  z.strictObject({
    kind: z.literal("kubeconfig"),
    /** the kubeconfig's content (YAML or JSON); e.g. from `kind get kubeconfig` or `gcloud container clusters get-credentials` */
    kubeconfig: z.string().min(1),
    context: z.string().min(1).optional(),
  }),
  z.strictObject({
    kind: z.literal("gke"),
    project: z.string().regex(/^[a-z][-a-z0-9]{4,28}[a-z0-9]$/, { message: "must be a GCP project id" }),
    zone: z.string().regex(/^[a-z]+-[a-z]+\d-[a-z]$/, { message: "must be a GCP zone like europe-west4-a" }),
    /** the cluster's kubeconfig, as `gcloud container clusters get-credentials` writes it */
    kubeconfig: z.string().min(1),
  }),
]);
export type ClusterConfig = z.infer<typeof ClusterConfig>;

export const RunStackConfig = z.strictObject({
  /** the run's id: names the stack and the namespace */
  runId: z
    .string()
    .min(1)
    .max(40)
    .regex(/^[a-z0-9-]+$/i, { message: "must be letters, digits and -" }),
  cluster: ClusterConfig,
  /** target pods, one per node (anti-affinity) */
  nodes: z.number().int().min(1).max(64),
  machineType: z.enum(Object.keys(MACHINE_TYPES) as [string, ...string[]]),
  target: z.strictObject({
    name: z.string().regex(DNS_LABEL).max(63),
    image: z.string().min(1),
    port: z.number().int().min(1).max(65535),
    health: z.string().startsWith("/").default("/health"),
    services: z.array(z.enum(SERVICES)).default([]),
    tracing: z.boolean().default(false),
    env: z.record(z.string().regex(/^[A-Z_][A-Z0-9_]*$/), z.string()).default({}),
  }),
  /** durable storage settings for an in-cluster PostgreSQL (SPEC: storage decides what "durable" means) */
  durable: z.boolean().default(true),
  k6: z
    .strictObject({
      /** the phase this load is (seed, populate, checkout-uniform-ramp, ...): names the TestRun and its ConfigMap, so every phase is a new TestRun */
      name: z.string().regex(DNS_LABEL).max(40).default("load"),
      /** k6 runner pods; the operator splits the arrival rate between them with execution segments */
      parallelism: z.number().int().min(1).max(64).default(1),
      /** `k6 archive` of the workload script (base64): the same scripts as local runs, bundled with their modules */
      archiveBase64: z.string().min(1),
      /** the runners' environment (BASE_URL is set to the target's in-cluster URL); the archive carries the same values as -e */
      env: z.record(z.string().regex(/^[A-Z_][A-Z0-9_]*$/), z.string()).default({}),
      image: z.string().default("grafana/k6:1.8.1"),
    })
    .optional(),
});
export type RunStackConfig = z.infer<typeof RunStackConfig>;
export type RunStackConfigInput = z.input<typeof RunStackConfig>;

export const ARCHIVE_FILE = "workload.tar";
/** raw samples as CSV on stdout, console and errors as JSON lines on stderr (the worker tells them apart by the first character) */
export const K6_ARGUMENTS = "--out csv=/dev/stdout --log-format=json --summary-mode=disabled --quiet";
/** the labels k6-operator puts on a TestRun's runner pods (not on its initializer or starter) */
export const runnerSelector = (testRun: string) => `k6_cr=${testRun},runner=true`;

/** The namespace (and stack name) of a run: `sfbench-<run id>`, lower-case, at most 63 characters. */
export function runNamespace(runId: string): string {
  return `sfbench-${runId.toLowerCase()}`.slice(0, 63).replace(/-+$/, "");
}
