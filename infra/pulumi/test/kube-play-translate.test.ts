/**
 * The program's rendered objects as podman kube play runs them (no podman
 * here): names under the run's prefix, Services as hostAliases and loopback
 * ports, replicas as one Deployment each, images swapped for their local
 * stand-ins, what kube play cannot run listed, and every Deployment still a
 * valid Kubernetes object.
 */
import { Deployment } from "kubernetes-models/apps/v1/Deployment";
import { PersistentVolumeClaim } from "kubernetes-models/v1/PersistentVolumeClaim";
import { describe, expect, it } from "vitest";
import type { RunStackConfigInput } from "../src/config.ts";
import { hostInSubnet } from "../src/kube-play/play.ts";
import { toKubePlay } from "../src/kube-play/translate.ts";
import { renderRun, type KubeObject } from "../src/render.ts";

const base: RunStackConfigInput = {
  runId: "Play-1",
  cluster: { kind: "kubeconfig", kubeconfig: "apiVersion: v1\nkind: Config\n" },
  nodes: 2,
  machineType: "kind",
  target: { name: "node-postgres", image: "localhost/sfbench/node-postgres:0.2.0", port: 8080, services: ["postgres"], tracing: false },
  k6: { archiveBase64: Buffer.from("k6 archive").toString("base64") },
};
const options = {
  prefix: "sfbench-play-1",
  hostPorts: [21650, 21651, 21652, 21653],
  podIps: ["10.89.7.100", "10.89.7.101", "10.89.7.102"],
  images: { "postgres:17": "localhost/sfbench-base/postgres:15-bookworm" },
};

interface Pod {
  hostAliases: { ip: string; hostnames: string[] }[];
  containers: {
    image: string;
    ports: { containerPort: number; hostPort?: number; hostIP?: string }[];
    volumeMounts?: { name: string }[];
    resources?: unknown;
  }[];
  volumes?: { name: string; persistentVolumeClaim?: { claimName: string }; emptyDir?: object }[];
}
const podOf = (o: KubeObject) => (o.spec as { template: { spec: Pod } }).template.spec;
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

  it("prefixes every name with the run's namespace, since kube play has none, and drops the Namespace, the Services and the TestRun with its script", async () => {
    const doc = toKubePlay(await renderRun(base), options);
    expect(doc.objects.map((o) => `${o.kind} ${o.metadata.name}`)).toEqual([
      "PersistentVolumeClaim sfbench-play-1-postgres",
      "Deployment sfbench-play-1-postgres",
      "Deployment sfbench-play-1-target-0",
      "Deployment sfbench-play-1-target-1",
    ]);
    for (const o of doc.objects) expect(o.metadata.namespace).toBeUndefined();
    expect(doc.dropped.map((d) => `${d.kind} ${d.name}`).sort()).toEqual([
      "ConfigMap k6-load",
      "Namespace sfbench-play-1",
      "Service postgres",
      "Service target",
      "TestRun load",
    ]);
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

  it("resolves each Service's name, short and in-cluster, to its pod's static IP in every pod", async () => {
    const doc = toKubePlay(await renderRun(base), options);
    for (const d of doc.objects.filter((o) => o.kind === "Deployment")) {
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
    for (const o of docs) {
      const model = o.kind === "Deployment" ? new Deployment(o as never) : new PersistentVolumeClaim(o as never);
      expect(() => model.validate(), `${o.kind} ${o.metadata.name}`).not.toThrow();
    }
  });

  it("refuses when there are fewer host ports or pod IPs than it needs, naming how many", async () => {
    const objects = await renderRun(base);
    expect(() => toKubePlay(objects, { ...options, hostPorts: [21650] })).toThrow(/1 host ports for more Service ports/);
    expect(() => toKubePlay(objects, { ...options, podIps: ["10.89.7.100"] })).toThrow(/1 pod IPs for more pods/);
  });
});

describe("the pods' static IPs", () => {
  it("counts hosts from the network address of the run's subnet", () => {
    expect(hostInSubnet("10.89.3.0/24", 100)).toBe("10.89.3.100");
    expect(hostInSubnet("10.88.0.0/16", 300)).toBe("10.88.1.44");
    expect(() => hostInSubnet("10.89.3.0/24", 255)).toThrow(/not in subnet/);
  });
});
