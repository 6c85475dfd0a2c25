/**
 * The run's resource graph, built with Pulumi's mocks (no CLI, no cluster),
 * and every rendered Kubernetes object validated against the Kubernetes API
 * schemas (kubernetes-models); the k6-operator TestRun against the fields
 * its CRD requires.
 */
import * as pulumi from "@pulumi/pulumi";
import { ConfigMap } from "kubernetes-models/v1/ConfigMap";
import { Namespace } from "kubernetes-models/v1/Namespace";
import { PersistentVolumeClaim } from "kubernetes-models/v1/PersistentVolumeClaim";
import { Service } from "kubernetes-models/v1/Service";
import { Deployment } from "kubernetes-models/apps/v1/Deployment";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { runNamespace, runnerSelector, RunStackConfig, type RunStackConfigInput } from "../src/config.ts";
import { targetPodResources } from "../src/machine.ts";
import { runProgram } from "../src/program.ts";

interface Created {
  type: string;
  name: string;
  inputs: Record<string, unknown>;
}

const KIND: Record<string, { apiVersion: string; kind: string; model?: new (d: never) => { validate(): void } }> = {
  "kubernetes:core/v1:Namespace": { apiVersion: "v1", kind: "Namespace", model: Namespace as never },
  "kubernetes:core/v1:Service": { apiVersion: "v1", kind: "Service", model: Service as never },
  "kubernetes:core/v1:ConfigMap": { apiVersion: "v1", kind: "ConfigMap", model: ConfigMap as never },
  "kubernetes:core/v1:PersistentVolumeClaim": { apiVersion: "v1", kind: "PersistentVolumeClaim", model: PersistentVolumeClaim as never },
  "kubernetes:apps/v1:Deployment": { apiVersion: "apps/v1", kind: "Deployment", model: Deployment as never },
};

/** the fields of k6-operator's TestRun (k6.io/v1alpha1) this program sets, as its CRD types them */
const TestRunSpec = z.object({
  parallelism: z.number().int().min(1),
  separate: z.boolean(),
  arguments: z.string(),
  script: z.object({ configMap: z.object({ name: z.string().min(1), file: z.string().min(1) }) }),
  runner: z.object({
    image: z.string().min(1),
    env: z.array(z.object({ name: z.string(), value: z.string() })),
    metadata: z.object({ labels: z.record(z.string(), z.string()) }),
    affinity: z.object({ podAntiAffinity: z.object({}).loose() }).loose(),
  }),
});

let stackNo = 0;

/** Runs the program under mocks and returns every resource it registered, once all outputs resolved. */
async function build(input: RunStackConfigInput) {
  const created: Created[] = [];
  await pulumi.runtime.setMocks(
    {
      newResource: (args) => {
        created.push({ type: args.type, name: args.name, inputs: args.inputs as Record<string, unknown> });
        return { id: `${args.name}-id`, state: args.inputs };
      },
      call: (args) => args.inputs,
    },
    "sfbench",
    `run-${++stackNo}`,
    false,
  );
  const out = runProgram(input);
  const resolve = <T>(o: pulumi.Output<T>) => new Promise<T>((r) => o.apply((v) => (r(v), v)));
  const [namespace, targetUrl] = await Promise.all([resolve(out.namespace), resolve(out.targetUrl)]);
  await new Promise((r) => setTimeout(r, 50)); // let the last registrations land
  const of = (type: string) => created.filter((c) => c.type === type);
  return { out, namespace, targetUrl, created, of };
}

const base: RunStackConfigInput = {
  runId: "Run-42ab",
  cluster: { kind: "kubeconfig", kubeconfig: "apiVersion: v1\nkind: Config\n" },
  nodes: 4,
  machineType: "n2-standard-4",
  target: { name: "node-postgres", image: "ghcr.io/sfbench/node-postgres:0.1.0", port: 8080, services: ["postgres"], tracing: true },
  k6: { parallelism: 2, archiveBase64: Buffer.from("k6 archive").toString("base64"), env: { RATE: "100", SEED: "7" } },
};

describe("the Pulumi program of one cluster run", () => {
  it("puts everything of the run in one namespace named after the run id", async () => {
    const { namespace, created } = await build(base);
    expect(namespace).toBe("sfbench-run-42ab");
    const namespaced = created.filter(
      (c) => c.type.startsWith("kubernetes:") && c.type !== "kubernetes:core/v1:Namespace" && c.type !== "pulumi:providers:kubernetes",
    );
    expect(namespaced.length).toBeGreaterThan(5);
    for (const c of namespaced) expect((c.inputs.metadata as { namespace: string }).namespace, c.name).toBe("sfbench-run-42ab");
  });

  it("deploys the target image with one pod per node, requests = limits from the machine type, and a readiness probe on its health route", async () => {
    const { of, targetUrl } = await build(base);
    const target = of("kubernetes:apps/v1:Deployment").find((d) => d.name === "target-target")!;
    const spec = target.inputs.spec as {
      replicas: number;
      template: {
        spec: {
          affinity: unknown;
          volumes: unknown;
          containers: {
            image: string;
            resources: unknown;
            readinessProbe: unknown;
            securityContext: unknown;
            volumeMounts: unknown;
            env: { name: string; value: string }[];
          }[];
        };
      };
    };
    expect(spec.replicas).toBe(4);
    const pod = spec.template.spec;
    expect(pod.affinity).toMatchObject({
      podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ topologyKey: "kubernetes.io/hostname" }] },
    });
    const c = pod.containers[0]!;
    expect(c.image).toBe("ghcr.io/sfbench/node-postgres:0.1.0");
    expect(c.resources).toEqual({ requests: { cpu: "3500m", memory: "12288Mi" }, limits: { cpu: "3500m", memory: "12288Mi" } });
    expect(c.readinessProbe).toMatchObject({ httpGet: { path: "/health", port: 8080 } });
    // confined as on one machine: no capabilities, the image's files read-only, writes to /data and /tmp only
    expect(c.securityContext).toEqual({ readOnlyRootFilesystem: true, allowPrivilegeEscalation: false, capabilities: { drop: ["ALL"] } });
    expect(c.volumeMounts).toEqual([
      { name: "data", mountPath: "/data" },
      { name: "tmp", mountPath: "/tmp" },
    ]);
    expect(pod.volumes).toEqual([
      { name: "data", emptyDir: {} },
      { name: "tmp", emptyDir: { medium: "Memory" } },
    ]);
    const env = Object.fromEntries(c.env.map((e) => [e.name, e.value]));
    expect(env).toMatchObject({
      PORT: "8080",
      HOST: "0.0.0.0",
      SFBENCH_DATA_DIR: "/data",
      SFBENCH_TRACE: "1",
      DATABASE_URL: "postgres://postgres@postgres:5432/postgres",
      KAFKA_BROKERS: "kafka:9092",
    });
    expect(targetUrl).toBe("http://target.sfbench-run-42ab.svc.cluster.local:8080");
  });

  it("starts the services the target declares, plus Kafka for spans when it traces, with durable PostgreSQL settings", async () => {
    const { of, out } = await build(base);
    const names = of("kubernetes:apps/v1:Deployment")
      .map((d) => (d.inputs.metadata as { name: string }).name)
      .sort();
    expect(names).toEqual(["kafka", "postgres", "target"]);
    const pg = of("kubernetes:apps/v1:Deployment").find((d) => (d.inputs.metadata as { name: string }).name === "postgres")!;
    const args = (pg.inputs.spec as { template: { spec: { containers: { args: string[] }[] } } }).template.spec.containers[0]!.args;
    expect(args).toEqual(expect.arrayContaining(["fsync=on", "synchronous_commit=on", "full_page_writes=on"]));
    expect(of("kubernetes:core/v1:PersistentVolumeClaim")).toHaveLength(2);
    expect(out.storage.postgres).toMatchObject({ instance: "dedicated", fsync: "on", volume: "persistent" });
  });

  it("loads the target through a k6-operator TestRun with the workload archive and the target's in-cluster URL", async () => {
    const { of } = await build(base);
    const [run] = of("kubernetes:k6.io/v1alpha1:TestRun");
    expect(run).toBeDefined();
    const spec = TestRunSpec.parse(run!.inputs.spec);
    expect(spec.parallelism).toBe(2);
    // the operator's `separate` would replace the runners' affinity: off, and the affinity keeps runners off the target's nodes and apart
    expect(spec.separate).toBe(false);
    const preferred = (
      spec.runner.affinity.podAntiAffinity as {
        preferredDuringSchedulingIgnoredDuringExecution: { podAffinityTerm: { labelSelector: { matchLabels: Record<string, string> } } }[];
      }
    ).preferredDuringSchedulingIgnoredDuringExecution.map((t) => t.podAffinityTerm.labelSelector.matchLabels);
    expect(preferred).toEqual([expect.objectContaining({ "app.kubernetes.io/component": "target" }), { k6_cr: "load", runner: "true" }]);
    expect(spec.arguments).toContain("--out csv=/dev/stdout");
    // console lines (the audit records) as JSON on stderr, so the worker can tell them from CSV lines in one log
    expect(spec.arguments).toContain("--log-format=json");
    const env = Object.fromEntries(spec.runner.env.map((e) => [e.name, e.value]));
    expect(env).toMatchObject({ BASE_URL: "http://target.sfbench-run-42ab.svc.cluster.local:8080", RATE: "100", SEED: "7" });
    const [cm] = of("kubernetes:core/v1:ConfigMap");
    expect((cm!.inputs.binaryData as Record<string, string>)[spec.script.configMap.file]).toBe(base.k6!.archiveBase64);
  });

  it("names each load phase's TestRun and ConfigMap after the phase, so a new phase is a new TestRun", async () => {
    const { of } = await build({ ...base, k6: { ...base.k6!, name: "checkout-uniform-ramp" } });
    const [run] = of("kubernetes:k6.io/v1alpha1:TestRun");
    expect((run!.inputs.metadata as { name: string }).name).toBe("checkout-uniform-ramp");
    expect(TestRunSpec.parse(run!.inputs.spec).script.configMap.name).toBe("k6-checkout-uniform-ramp");
    expect(runnerSelector("checkout-uniform-ramp")).toBe("k6_cr=checkout-uniform-ramp,runner=true");
    expect(RunStackConfig.safeParse({ ...base, k6: { ...base.k6!, name: "Not A Label" } }).success).toBe(false);
  });

  it("renders only objects that the Kubernetes API schemas accept", async () => {
    const { created } = await build(base);
    const k8sObjects = created.filter((c) => KIND[c.type]);
    expect(k8sObjects.length).toBeGreaterThanOrEqual(9);
    for (const c of k8sObjects) {
      const { apiVersion, kind, model } = KIND[c.type]!;
      const obj = new model!({ apiVersion, kind, ...c.inputs } as never);
      expect(() => obj.validate(), `${kind} ${c.name}`).not.toThrow();
    }
  });

  it("catches an invalid object: the validator is not a no-op", () => {
    const bad = new Deployment({ apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "x" }, spec: { replicas: "four" } } as never);
    expect(() => bad.validate()).toThrow();
  });

  it("runs without load (verify and audit only) and without services", async () => {
    const { of } = await build({ ...base, k6: undefined, target: { ...base.target, services: [], tracing: false } });
    expect(of("kubernetes:k6.io/v1alpha1:TestRun")).toHaveLength(0);
    expect(of("kubernetes:apps/v1:Deployment").map((d) => (d.inputs.metadata as { name: string }).name)).toEqual(["target"]);
  });
});

describe("the run stack's configuration", () => {
  it("names the field and what is allowed for a bad value", () => {
    const r = RunStackConfig.safeParse({ ...base, nodes: 0, machineType: "n9-huge" });
    expect(r.success).toBe(false);
    const paths = r.error!.issues.map((i) => i.path.join("."));
    expect(paths).toEqual(expect.arrayContaining(["nodes", "machineType"]));
  });

  it("keeps namespaces within Kubernetes' 63 characters", () => {
    expect(runNamespace("A".repeat(80))).toHaveLength(63);
    expect(runNamespace("abc")).toBe("sfbench-abc");
  });

  it("sizes a pod below its node so exactly one fits", () => {
    expect(targetPodResources("n2-standard-8")).toEqual({ cpu: "7500m", memory: "24576Mi" });
    expect(targetPodResources("kind")).toEqual({ cpu: "1500m", memory: "3072Mi" });
  });
});
