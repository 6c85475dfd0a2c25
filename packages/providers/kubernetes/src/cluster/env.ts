/**
 * The worker's cluster configuration, read once and checked at start (like
 * ../env.ts). Without SFBENCH_KUBECONFIG the worker has no cluster: runs that
 * need one stay needs_cluster with needsClusterMessage(). With it, the
 * kubernetes provider deploys them there (docs/cluster.md).
 */
import { readFileSync } from "node:fs";
import { MACHINE_TYPES } from "@sfbench/infra-pulumi/machine";
import { z } from "zod";

const Env = z
  .object({
    SFBENCH_KUBECONFIG: z
      .string()
      .min(1)
      .optional()
      .describe("path of the cluster's kubeconfig file (kind get kubeconfig, gcloud container clusters get-credentials)"),
    SFBENCH_KUBE_CONTEXT: z.string().min(1).optional().describe("the kubeconfig context to use; default: its current-context"),
    SFBENCH_GKE_PROJECT: z
      .string()
      .regex(/^[a-z][-a-z0-9]{4,28}[a-z0-9]$/, { message: "must be a GCP project id" })
      .optional(),
    SFBENCH_GKE_ZONE: z
      .string()
      .regex(/^[a-z]+-[a-z]+\d-[a-z]$/, { message: "must be a GCP zone like europe-west4-a" })
      .optional(),
    SFBENCH_CLUSTER_MACHINE: z.enum(Object.keys(MACHINE_TYPES) as [keyof typeof MACHINE_TYPES, ...(keyof typeof MACHINE_TYPES)[]]).default("n2-standard-4"),
    SFBENCH_CLUSTER_MAX_NODES: z.coerce.number().int().min(1).max(64).default(10).describe("the most nodes a run may ask for (the cluster's node pool size)"),
    SFBENCH_K6_PARALLELISM: z.coerce.number().int().min(1).max(64).default(1).describe("k6 runner pods per load phase"),
    SFBENCH_PULUMI_BACKEND: z
      .string()
      .regex(/^(file|s3|gs|azblob|https?):\/\//, { message: "must be a Pulumi backend URL (file://..., gs://..., s3://..., https://api.pulumi.com)" })
      .optional(),
    SFBENCH_PULUMI_PASSPHRASE: z.string().default("").describe("passphrase of the stacks' secrets on a self-managed backend"),
    SFBENCH_KUBECTL: z.string().min(1).default("kubectl"),
    SFBENCH_KUBE_PLAY: z
      .enum(["0", "1"])
      .default("0")
      .describe("1: runs that need a cluster play the cluster program on this machine with podman kube play (docs/cluster.md)"),
  })
  .superRefine((e, ctx) => {
    if ((e.SFBENCH_GKE_PROJECT === undefined) !== (e.SFBENCH_GKE_ZONE === undefined))
      ctx.addIssue({
        code: "custom",
        path: [e.SFBENCH_GKE_PROJECT ? "SFBENCH_GKE_ZONE" : "SFBENCH_GKE_PROJECT"],
        message: "SFBENCH_GKE_PROJECT and SFBENCH_GKE_ZONE go together",
      });
    if (e.SFBENCH_GKE_PROJECT && !e.SFBENCH_KUBECONFIG)
      ctx.addIssue({
        code: "custom",
        path: ["SFBENCH_KUBECONFIG"],
        message: "required with SFBENCH_GKE_PROJECT: the kubeconfig `gcloud container clusters get-credentials` writes",
      });
    if (e.SFBENCH_KUBE_PLAY === "1" && e.SFBENCH_KUBECONFIG)
      ctx.addIssue({
        code: "custom",
        path: ["SFBENCH_KUBE_PLAY"],
        message: "1 plays the cluster on this machine, SFBENCH_KUBECONFIG names a real one: set one or the other",
      });
    if (e.SFBENCH_KUBECONFIG && e.SFBENCH_CLUSTER_MACHINE === "kind" && e.SFBENCH_GKE_PROJECT)
      ctx.addIssue({ code: "custom", path: ["SFBENCH_CLUSTER_MACHINE"], message: "kind is a local cluster's machine type, not a GKE one" });
  });

export interface ClusterEnv {
  cluster: { kind: "kubeconfig"; kubeconfig: string; context?: string } | { kind: "gke"; project: string; zone: string; kubeconfig: string };
  /** the kubeconfig file (kubectl reads it for TestRun status, runner logs and port-forwards) */
  kubeconfigPath: string;
  machineType: keyof typeof MACHINE_TYPES;
  maxNodes: number;
  k6Parallelism: number;
  /** default: file://<sfbench home>/pulumi (the worker's machine) */
  pulumiBackend?: string;
  pulumiPassphrase: string;
  kubectl: string;
}

/** The names the operator sets, for messages and docs. */
export const CLUSTER_ENV_VARS = [
  "SFBENCH_KUBECONFIG",
  "SFBENCH_KUBE_CONTEXT",
  "SFBENCH_GKE_PROJECT",
  "SFBENCH_GKE_ZONE",
  "SFBENCH_CLUSTER_MACHINE",
  "SFBENCH_CLUSTER_MAX_NODES",
  "SFBENCH_K6_PARALLELISM",
  "SFBENCH_PULUMI_BACKEND",
  "SFBENCH_PULUMI_PASSPHRASE",
  "SFBENCH_KUBECTL",
  "SFBENCH_KUBE_PLAY",
] as const;

/** Where the worker's runs that need a cluster go: a real cluster, the cluster program played on this machine, or nowhere (they wait as needs_cluster). */
export type ClusterSetting = { kind: "cluster"; env: ClusterEnv } | { kind: "kube-play"; maxNodes: number } | undefined;

/** The operator's choice, checked: one message naming every bad variable. */
export function readClusterSetting(
  source: NodeJS.ProcessEnv = process.env,
  readFile: (path: string) => string = (p) => readFileSync(p, "utf8"),
): ClusterSetting {
  const env = readClusterEnv(source, readFile);
  if (env) return { kind: "cluster", env };
  const e = Env.parse(source);
  return e.SFBENCH_KUBE_PLAY === "1" ? { kind: "kube-play", maxNodes: e.SFBENCH_CLUSTER_MAX_NODES } : undefined;
}

/**
 * The cluster configuration, or undefined when the operator configured none
 * (no SFBENCH_KUBECONFIG). Throws one message naming every bad variable.
 */
export function readClusterEnv(
  source: NodeJS.ProcessEnv = process.env,
  readFile: (path: string) => string = (p) => readFileSync(p, "utf8"),
): ClusterEnv | undefined {
  const r = Env.safeParse(source);
  if (!r.success) throw new Error(`invalid cluster configuration: ${r.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`);
  const e = r.data;
  if (!e.SFBENCH_KUBECONFIG) return undefined;
  let kubeconfig: string;
  try {
    kubeconfig = readFile(e.SFBENCH_KUBECONFIG);
  } catch (err) {
    throw new Error(`invalid cluster configuration: SFBENCH_KUBECONFIG: cannot read ${e.SFBENCH_KUBECONFIG}: ${(err as Error).message}`);
  }
  if (!/\bclusters\s*:|"clusters"\s*:/.test(kubeconfig))
    throw new Error(`invalid cluster configuration: SFBENCH_KUBECONFIG: ${e.SFBENCH_KUBECONFIG} is not a kubeconfig (it lists no clusters)`);
  return {
    cluster: e.SFBENCH_GKE_PROJECT
      ? { kind: "gke", project: e.SFBENCH_GKE_PROJECT, zone: e.SFBENCH_GKE_ZONE!, kubeconfig }
      : { kind: "kubeconfig", kubeconfig, ...(e.SFBENCH_KUBE_CONTEXT ? { context: e.SFBENCH_KUBE_CONTEXT } : {}) },
    kubeconfigPath: e.SFBENCH_KUBECONFIG,
    machineType: e.SFBENCH_CLUSTER_MACHINE,
    maxNodes: e.SFBENCH_CLUSTER_MAX_NODES,
    k6Parallelism: e.SFBENCH_K6_PARALLELISM,
    ...(e.SFBENCH_PULUMI_BACKEND ? { pulumiBackend: e.SFBENCH_PULUMI_BACKEND } : {}),
    pulumiPassphrase: e.SFBENCH_PULUMI_PASSPHRASE,
    kubectl: e.SFBENCH_KUBECTL,
  };
}
