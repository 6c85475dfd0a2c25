/**
 * The program's rendered objects as podman kube play runs them (no podman
 * here): names under the run's prefix, Services as hostAliases and loopback
 * ports, replicas as one Deployment each, the TestRun as the runner pods the
 * k6-operator would start (its archive from a host directory, execution
 * segments when there are several), images swapped for their local
 * stand-ins, what kube play cannot run listed, and every object still a
 * valid Kubernetes object.
 */
import { Deployment } from "kubernetes-models/apps/v1/Deployment";
import { PersistentVolumeClaim } from "kubernetes-models/v1/PersistentVolumeClaim";
import { Pod as PodModel } from "kubernetes-models/v1/Pod";
import { describe, expect, it } from "vitest";
import type { RunStackConfigInput } from "@sfbench/infra-pulumi/config";
import { hostInSubnet } from "../src/kube-play/play.ts";
import { testRunName } from "../src/testrun.ts";
import { executionSegment, toKubePlay } from "../src/kube-play/translate.ts";
import { renderRun, type KubeObject } from "@sfbench/infra-pulumi/render";

const base: RunStackConfigInput = {
  runId: "Play-1",
  cluster: { kind: "kubeconfig", kubeconfig: "apiVersion: v1\nkind: Config\n" },
  nodes: 2,
  machineType: "kind",
  target: { name: "node-postgres", image: "localhost/sfbench/node-postgres:0.2.0", port: 8080, services: ["postgres"], tracing: false },
  k6: { archiveBase64: Buffer.from("k6 archive").toString("base64"), env: { SEED: "1" } },
};
const options = {
  prefix: "sfbench-play-1",
  hostPorts: [21650, 21651, 21652, 21653],
  podIps: ["10.89.7.100", "10.89.7.101", "10.89.7.102", "10.89.7.103", "10.89.7.104"],
  images: { "postgres:17": "localhost/sfbench-base/postgres:15-bookworm", "grafana/k6:1.8.1": "localhost/sfbench-base/k6:1.8.1" },
  files: { "k6-load": "/srv/run/k6-load" },
};

interface Pod {
  hostname?: string;
  restartPolicy?: string;
  hostAliases: { ip: string; hostnames: string[] }[];
  containers: {
    name: string;
    image: string;
    args?: string[];
    env?: { name: string; value: string }[];
    ports?: { containerPort: number; hostPort?: number; hostIP?: string }[];
    volumeMounts?: { name: string; mountPath: string; readOnly?: boolean }[];
    resources?: unknown;
  }[];
  volumes?: { name: string; persistentVolumeClaim?: { claimName: string }; emptyDir?: object; hostPath?: { path: string; type: string } }[];
}
const podOf = (o: KubeObject) => (o.kind === "Pod" ? (o.spec as Pod) : (o.spec as { template: { spec: Pod } }).template.spec);
const byName = (objs: KubeObject[], name: string, kind = "Deployment") => objs.find((o) => o.kind === kind && o.metadata.name === name)!;

describe("the rendered run under podman kube play", () => {
  it("renders the program's objects under Pulumi's mocks, in the order the program registers them", async () => {
    const objects = await renderRun(base);
    expect(objects.map((o) => `${o.kind} ${o.metadata.name}`)).toEqual([
      "Namespace sfbench-play-1",
      "PersistentVolumeClaim postgres",
      "Service postgres",
      "Deployment postgres",
      "Service target",
      "Deployment target",
      "ConfigMap k6-load",
      "TestRun load",
    ]);
    expect(byName(objects, "load", "TestRun").apiVersion).toBe("k6.io/v1alpha1");
  });

  it("prefixes every name with the run's namespace, since kube play has none, and drops only the Namespace and the Services", async () => {
    const doc = toKubePlay(await renderRun(base), options);
    expect(doc.objects.map((o) => `${o.kind} ${o.metadata.name}`)).toEqual([
      "PersistentVolumeClaim sfbench-play-1-postgres",
      "Deployment sfbench-play-1-postgres",
      "Deployment sfbench-play-1-target-0",
      "Deployment sfbench-play-1-target-1",
      "Pod sfbench-play-1-load-1",
    ]);
    for (const o of doc.objects) expect(o.metadata.namespace).toBeUndefined();
    expect(doc.dropped.map((d) => `${d.kind} ${d.name}`).sort()).toEqual(["Namespace sfbench-play-1", "Service postgres", "Service target"]);
    expect(podOf(byName(doc.objects, "sfbench-play-1-postgres")).volumes).toEqual([
      { name: "data", persistentVolumeClaim: { claimName: "sfbench-play-1-postgres" } },
    ]);
  });

  it("turns 2 replicas into 2 one-pod Deployments, each with its own loopback port, and publishes the services' ports too", async () => {
    const doc = toKubePlay(await renderRun(base), options);
    expect(doc.pods.map((p) => [p.pod, p.from, p.replica, p.ip])).toEqual([
      ["sfbench-play-1-postgres-pod-0", "postgres", 0, "10.89.7.100"],
      ["sfbench-play-1-target-0-pod-0", "target", 0, "10.89.7.101"],
      ["sfbench-play-1-target-1-pod-0", "target", 1, "10.89.7.102"],
    ]);
    expect(doc.published).toEqual([
      { service: "postgres", port: 5432, pod: "sfbench-play-1-postgres-pod-0", hostPort: 21650 },
      { service: "target", port: 8080, pod: "sfbench-play-1-target-0-pod-0", hostPort: 21651 },
      { service: "target", port: 8080, pod: "sfbench-play-1-target-1-pod-0", hostPort: 21652 },
    ]);
    const target1 = podOf(byName(doc.objects, "sfbench-play-1-target-1")).containers[0]!;
    expect(target1.ports).toEqual([{ name: "http", containerPort: 8080, hostPort: 21652, hostIP: "127.0.0.1" }]);
    expect((byName(doc.objects, "sfbench-play-1-target-1").spec as { replicas: number }).replicas).toBe(1);
    // the program's limits stay as it asked
    expect(target1.resources).toEqual({ requests: { cpu: "1500m", memory: "3072Mi" }, limits: { cpu: "1500m", memory: "3072Mi" } });
  });

  it("resolves each Service's name, short and in-cluster, to its pod's static IP in every pod, the runners' too", async () => {
    const doc = toKubePlay(await renderRun(base), options);
    for (const d of doc.objects.filter((o) => o.kind === "Deployment" || o.kind === "Pod")) {
      expect(podOf(d).hostAliases).toEqual([
        { ip: "10.89.7.100", hostnames: ["postgres", "postgres.sfbench-play-1", "postgres.sfbench-play-1.svc", "postgres.sfbench-play-1.svc.cluster.local"] },
        { ip: "10.89.7.101", hostnames: ["target", "target.sfbench-play-1", "target.sfbench-play-1.svc", "target.sfbench-play-1.svc.cluster.local"] },
      ]);
    }
  });

  it("names the local stand-in for a public image and keeps an image it has no stand-in for", async () => {
    const doc = toKubePlay(await renderRun(base), options);
    expect(podOf(byName(doc.objects, "sfbench-play-1-postgres")).containers[0]!.image).toBe("localhost/sfbench-base/postgres:15-bookworm");
    expect(podOf(byName(doc.objects, "sfbench-play-1-target-0")).containers[0]!.image).toBe("localhost/sfbench/node-postgres:0.2.0");
  });

  it("gives each Deployment's emptyDir its own volume name (kube play names the volume after it)", async () => {
    const doc = toKubePlay(await renderRun({ ...base, durable: false, target: { ...base.target, services: ["postgres", "redis"] } }), {
      ...options,
      podIps: [...options.podIps, "10.89.7.103"],
    });
    const pg = podOf(byName(doc.objects, "sfbench-play-1-postgres"));
    const redis = podOf(byName(doc.objects, "sfbench-play-1-redis"));
    expect(pg.volumes).toEqual([{ name: "sfbench-play-1-postgres-data", emptyDir: {} }]);
    expect(redis.volumes).toEqual([{ name: "sfbench-play-1-redis-data", emptyDir: {} }]);
    expect(pg.containers[0]!.volumeMounts).toEqual([{ name: "sfbench-play-1-postgres-data", mountPath: "/var/lib/postgresql/data" }]);
  });

  it("writes one YAML document per object, each a valid Kubernetes object", async () => {
    const doc = toKubePlay(await renderRun(base), options);
    const docs = doc.yaml.split("\n---\n").map((d) => JSON.parse(d) as KubeObject);
    expect(docs).toEqual(doc.objects);
    expect(docs.map((o) => o.kind)).toContain("Pod");
    for (const o of docs) {
      const model = o.kind === "Deployment" ? new Deployment(o as never) : o.kind === "Pod" ? new PodModel(o as never) : new PersistentVolumeClaim(o as never);
      expect(() => model.validate(), `${o.kind} ${o.metadata.name}`).not.toThrow();
    }
  });

  it("refuses when there are fewer host ports or pod IPs than it needs, naming how many", async () => {
    const objects = await renderRun(base);
    expect(() => toKubePlay(objects, { ...options, hostPorts: [21650] })).toThrow(/1 host ports for more Service ports/);
    expect(() => toKubePlay(objects, { ...options, podIps: ["10.89.7.100"] })).toThrow(/1 pod IPs for more pods/);
    expect(() => toKubePlay(objects, { ...options, podIps: options.podIps.slice(0, 3) })).toThrow(
      /3 pod IPs for more pods \(runner 1 of TestRun load is pod 4\)/,
    );
  });
});

describe("the program's TestRun under podman kube play", () => {
  const runner = (doc: ReturnType<typeof toKubePlay>, name: string) => byName(doc.objects, name, "Pod");

  it("becomes one runner pod as the k6-operator runs it: the runner image's stand-in running the archive with the TestRun's arguments, serving k6's REST API, never restarted", async () => {
    const doc = toKubePlay(await renderRun(base), options);
    expect(doc.runners.map(({ yaml: _yaml, ...r }) => r)).toEqual([
      { pod: "sfbench-play-1-load-1", testRun: "load", index: 1, ip: "10.89.7.103", container: "sfbench-play-1-load-1-k6" },
    ]);
    const pod = runner(doc, "sfbench-play-1-load-1");
    // its own YAML, to be played beside the run, is the same pod
    expect(JSON.parse(doc.runners[0]!.yaml)).toEqual(pod);
    expect(pod.metadata.labels).toMatchObject({ app: "k6", k6_cr: "load", runner: "true", "sfbench.dev/run": "play-1" });
    const spec = podOf(pod);
    expect(spec.restartPolicy).toBe("Never");
    expect(spec.hostname).toBe("sfbench-play-1-load-1");
    const [k6] = spec.containers;
    expect(k6!.name).toBe("k6");
    expect(k6!.image).toBe("localhost/sfbench-base/k6:1.8.1");
    expect(k6!.args).toEqual([
      "run",
      "/test/workload.tar",
      "--out",
      "csv=/dev/stdout",
      "--log-format=json",
      "--summary-mode=disabled",
      "--quiet",
      "--address=0.0.0.0:6565",
    ]);
    // no published port: kube play would bind the container port on the host
    expect(k6!.ports).toBeUndefined();
  });

  it("mounts the archive read-only from the host directory given for the script's ConfigMap, where the operator mounts the ConfigMap, and plays no ConfigMap", async () => {
    const doc = toKubePlay(await renderRun(base), options);
    const spec = podOf(runner(doc, "sfbench-play-1-load-1"));
    expect(spec.volumes).toEqual([{ name: "k6-test-volume", hostPath: { path: "/srv/run/k6-load", type: "Directory" } }]);
    expect(spec.containers[0]!.volumeMounts).toEqual([{ name: "k6-test-volume", mountPath: "/test", readOnly: true }]);
    expect(doc.objects.filter((o) => o.kind === "ConfigMap")).toEqual([]);
  });

  it("gives the runners the environment the program set, BASE_URL the target Service's in-cluster name, which their hostAliases resolve", async () => {
    const doc = toKubePlay(await renderRun(base), options);
    const spec = podOf(runner(doc, "sfbench-play-1-load-1"));
    expect(spec.containers[0]!.env).toEqual([
      { name: "BASE_URL", value: "http://target.sfbench-play-1.svc.cluster.local:8080" },
      { name: "K6_CSV_TIME_FORMAT", value: "unix_milli" },
      { name: "K6_NO_USAGE_REPORT", value: "true" },
      { name: "SEED", value: "1" },
    ]);
    const target = spec.hostAliases.find((a) => a.hostnames.includes("target.sfbench-play-1.svc.cluster.local"));
    expect(target?.ip).toBe(doc.pods.find((p) => p.from === "target")!.ip);
  });

  it("splits a TestRun of parallelism 3 into 3 runners with the operator's execution segments, their IPs after the Deployments' pods", async () => {
    const objects = await renderRun({ ...base, nodes: 1, k6: { ...base.k6!, name: "checkout-ramp-0", parallelism: 3 } });
    const doc = toKubePlay(objects, { ...options, files: { "k6-checkout-ramp-0": "/srv/x" } });
    expect(doc.runners.map((r) => [r.pod, r.index, r.ip])).toEqual([
      ["sfbench-play-1-checkout-ramp-0-1", 1, "10.89.7.102"],
      ["sfbench-play-1-checkout-ramp-0-2", 2, "10.89.7.103"],
      ["sfbench-play-1-checkout-ramp-0-3", 3, "10.89.7.104"],
    ]);
    const segments = doc.runners.map((r) => podOf(runner(doc, r.pod)).containers[0]!.args!.filter((a) => a.startsWith("--execution-segment")));
    expect(segments).toEqual([
      ["--execution-segment=0:1/3", "--execution-segment-sequence=0,1/3,2/3,1"],
      ["--execution-segment=1/3:2/3", "--execution-segment-sequence=0,1/3,2/3,1"],
      ["--execution-segment=2/3:1", "--execution-segment-sequence=0,1/3,2/3,1"],
    ]);
    expect(executionSegment(1, 1)).toEqual([]);
  });

  it("cuts a runner's hostname to 63 characters, as Kubernetes does for a long pod name", async () => {
    const prefix = `sfbench-${"a".repeat(36)}`;
    const objects = await renderRun({ ...base, runId: "a".repeat(36), k6: { ...base.k6!, name: "checkout-uniform-stable-confirm-1" } });
    const doc = toKubePlay(objects, { ...options, prefix, files: { "k6-checkout-uniform-stable-confirm-1": "/srv/x" } });
    const spec = podOf(runner(doc, `${prefix}-checkout-uniform-stable-confirm-1-1`));
    expect(spec.hostname).toBe(`${prefix}-checkout-uniform-s`);
    expect(spec.hostname!.length).toBeLessThanOrEqual(63);
  });

  it("refuses a TestRun whose script has no host directory, saying which ConfigMap and file to provide", async () => {
    const objects = await renderRun(base);
    expect(() => toKubePlay(objects, { ...options, files: {} })).toThrow(
      'TestRun load reads its script from ConfigMap k6-load, which kube play cannot mount (binaryData): write its workload.tar into a host directory and pass it as files["k6-load"]',
    );
  });

  it("names a TestRun after the raw file's stem, a DNS label of at most 40 characters that stays apart from a stem cut the same way", () => {
    expect(testRunName("checkout-uniform-ramp-0")).toBe("checkout-uniform-ramp-0");
    expect(testRunName("Micro_big-two.40")).toBe("micro-big-two-40");
    const a = testRunName("contention-zipfian-stable-confirm-step-down-1");
    const b = testRunName("contention-zipfian-stable-confirm-step-down-2");
    expect(a).toMatch(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/);
    expect(a.length).toBeLessThanOrEqual(40);
    expect(a).not.toBe(b);
  });
});

describe("the pods' static IPs", () => {
  it("counts hosts from the network address of the run's subnet", () => {
    expect(hostInSubnet("10.89.3.0/24", 100)).toBe("10.89.3.100");
    expect(hostInSubnet("10.88.0.0/16", 300)).toBe("10.88.1.44");
    expect(() => hostInSubnet("10.89.3.0/24", 255)).toThrow(/not in subnet/);
  });
});
