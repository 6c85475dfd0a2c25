/**
 * The rendered objects of a run as `podman kube play` (podman 4.3) runs them.
 * What kube play lacks, and what takes its place here:
 *
 * - Namespaces: none. Every name (Deployment, PVC, ConfigMap, volume) gets the
 *   run's prefix, so two runs never share a pod or a volume.
 * - Services: ignored by kube play. Each Service's name (and its
 *   `<name>.<namespace>.svc.cluster.local` form) resolves in every pod through
 *   `hostAliases` to the static IP of the pod it selects (the caller passes
 *   `--ip` in pod order), and each of its ports is published on a loopback
 *   host port (`hostPort` + `hostIP: 127.0.0.1`), which is how the host (verify,
 *   k6) reaches it.
 * - Replicas: kube play starts `replicas` pods of one template, all with the
 *   same host port, so the second cannot bind. A Deployment of N replicas
 *   becomes N Deployments of one replica (`<name>-<i>`), each with its own
 *   host ports; its Service resolves to replica 0 (no in-cluster balancing).
 * - emptyDir: kube play makes a named volume of the pod volume's name, shared
 *   by every pod that uses the name; it is renamed per Deployment.
 * - Kinds other than Deployment, ConfigMap and PersistentVolumeClaim are
 *   dropped (and listed): the k6-operator's TestRun needs the operator, and the
 *   ConfigMap only a TestRun reads goes with it.
 * - Images: the program names public images; the run names their stand-ins in
 *   the project's podman storage.
 *
 * Readiness probes and affinity are kept as rendered; kube play ignores them
 * (the caller waits for the published health route instead).
 */
import { z } from "zod";
import { KubeObject } from "../render.ts";

export const KubePlayOptions = z.strictObject({
  /** every name's prefix (the run's namespace) */
  prefix: z.string().regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/),
  /** loopback host ports to publish the Services' ports on, used in order */
  hostPorts: z.array(z.number().int().min(1).max(65535)),
  /** static pod IPs on the run's network, used in pod order (kube play's --ip) */
  podIps: z.array(z.ipv4()),
  /** the program's image -> the image in the project's podman storage */
  images: z.record(z.string(), z.string()).default({}),
});
export type KubePlayOptions = z.input<typeof KubePlayOptions>;

export interface PlayedPod {
  /** the pod's name as kube play gives it: `<deployment>-pod-0` */
  pod: string;
  deployment: string;
  /** the rendered Deployment it comes from, and which replica it is */
  from: string;
  replica: number;
  ip: string;
  /** the container names kube play gives: `<pod>-<container>` */
  containers: string[];
}

export interface PublishedPort {
  service: string;
  port: number;
  pod: string;
  hostPort: number;
}

export interface KubePlayDocument {
  /** the objects kube play runs, as a multi-document YAML (each document JSON, a subset of YAML) */
  yaml: string;
  objects: KubeObject[];
  pods: PlayedPod[];
  published: PublishedPort[];
  dropped: { kind: string; name: string; why: string }[];
}

interface Container {
  name: string;
  image: string;
  ports?: { containerPort: number; hostPort?: number; hostIP?: string; name?: string }[];
  env?: { name: string; value?: string; valueFrom?: { configMapKeyRef?: { name: string } } }[];
  envFrom?: { configMapRef?: { name: string } }[];
  volumeMounts?: { name: string; mountPath: string }[];
}
interface Volume {
  name: string;
  emptyDir?: object;
  persistentVolumeClaim?: { claimName: string };
  configMap?: { name: string };
}
interface PodSpec {
  containers: Container[];
  volumes?: Volume[];
  hostAliases?: { ip: string; hostnames: string[] }[];
}
interface DeploymentSpec {
  replicas?: number;
  selector: { matchLabels: Record<string, string> };
  template: { metadata: { labels: Record<string, string> }; spec: PodSpec };
}
interface ServiceSpec {
  selector: Record<string, string>;
  ports: { port: number; targetPort?: number | string }[];
}

const clone = <T>(v: T): T => structuredClone(v);
const matches = (selector: Record<string, string>, labels: Record<string, string>) => Object.entries(selector).every(([k, v]) => labels[k] === v);

export function toKubePlay(objects: readonly KubeObject[], input: KubePlayOptions): KubePlayDocument {
  const opts = KubePlayOptions.parse(input);
  const named = (name: string) => `${opts.prefix}-${name}`;
  const dropped: KubePlayDocument["dropped"] = [];
  const namespaces = new Set(objects.filter((o) => o.kind === "Namespace").map((o) => o.metadata.name));
  const deployments = objects.filter((o) => o.kind === "Deployment");
  const services = objects.filter((o) => o.kind === "Service");

  // pods first: their IPs are what the Services resolve to
  const pods: PlayedPod[] = [];
  const played: { pod: PlayedPod; spec: DeploymentSpec; labels: Record<string, string>; metaLabels: Record<string, string> }[] = [];
  for (const d of deployments) {
    const spec = d.spec as DeploymentSpec;
    const replicas = spec.replicas ?? 1;
    for (let replica = 0; replica < replicas; replica++) {
      const deployment = named(replicas > 1 ? `${d.metadata.name}-${replica}` : d.metadata.name);
      const ip = opts.podIps[pods.length];
      if (!ip) throw new Error(`${opts.podIps.length} pod IPs for more pods (${d.metadata.name} replica ${replica} is pod ${pods.length + 1})`);
      const pod: PlayedPod = {
        pod: `${deployment}-pod-0`,
        deployment,
        from: d.metadata.name,
        replica,
        ip,
        containers: spec.template.spec.containers.map((c) => `${deployment}-pod-0-${c.name}`),
      };
      pods.push(pod);
      played.push({ pod, spec: clone(spec), labels: spec.template.metadata.labels, metaLabels: d.metadata.labels ?? {} });
    }
  }

  const aliases: { ip: string; hostnames: string[] }[] = [];
  const published: PublishedPort[] = [];
  let nextPort = 0;
  for (const s of services) {
    const spec = s.spec as ServiceSpec;
    const backends = played.filter((p) => matches(spec.selector, p.labels));
    if (backends.length === 0) throw new Error(`Service ${s.metadata.name} selects no Deployment's pods`);
    const ns = s.metadata.namespace;
    const hostnames = [
      s.metadata.name,
      ...(ns ? [`${s.metadata.name}.${ns}`, `${s.metadata.name}.${ns}.svc`, `${s.metadata.name}.${ns}.svc.cluster.local`] : []),
    ];
    aliases.push({ ip: backends[0]!.pod.ip, hostnames });
    for (const b of backends) {
      for (const port of spec.ports) {
        const target = port.targetPort ?? port.port;
        const container = b.spec.template.spec.containers.find((c) => (c.ports ?? []).some((p) => p.containerPort === target || p.name === target));
        if (!container) throw new Error(`Service ${s.metadata.name}: no container of ${b.pod.deployment} has port ${target}`);
        const hostPort = opts.hostPorts[nextPort++];
        if (hostPort === undefined) throw new Error(`${opts.hostPorts.length} host ports for more Service ports`);
        const p = container.ports!.find((q) => q.containerPort === target || q.name === target)!;
        p.hostPort = hostPort;
        p.hostIP = "127.0.0.1";
        published.push({ service: s.metadata.name, port: port.port, pod: b.pod.pod, hostPort });
      }
    }
  }

  const claims = objects.filter((o) => o.kind === "PersistentVolumeClaim");
  const configMaps = objects.filter((o) => o.kind === "ConfigMap");
  const usedConfigMaps = new Set<string>();
  /** a ConfigMap a played pod reads: kept, under its prefixed name */
  const configMap = (name: string) => {
    usedConfigMaps.add(name);
    return named(name);
  };
  const out: KubeObject[] = [];
  for (const c of claims) out.push(rename(c, named(c.metadata.name)));
  const deploymentsOut: KubeObject[] = [];
  for (const { pod, spec, metaLabels } of played) {
    const podSpec = spec.template.spec;
    const volumes = new Map<string, string>();
    for (const v of podSpec.volumes ?? []) {
      if (v.persistentVolumeClaim) v.persistentVolumeClaim.claimName = named(v.persistentVolumeClaim.claimName);
      if (v.configMap) v.configMap.name = configMap(v.configMap.name);
      if (v.emptyDir) {
        volumes.set(v.name, `${pod.deployment}-${v.name}`);
        v.name = `${pod.deployment}-${v.name}`;
      }
    }
    for (const c of podSpec.containers) {
      c.image = opts.images[c.image] ?? c.image;
      for (const m of c.volumeMounts ?? []) m.name = volumes.get(m.name) ?? m.name;
      for (const e of c.env ?? []) {
        const ref = e.valueFrom?.configMapKeyRef;
        if (ref) ref.name = configMap(ref.name);
      }
      for (const e of c.envFrom ?? []) if (e.configMapRef) e.configMapRef.name = configMap(e.configMapRef.name);
    }
    if (aliases.length) podSpec.hostAliases = [...(podSpec.hostAliases ?? []), ...aliases];
    deploymentsOut.push(
      KubeObject.parse({ apiVersion: "apps/v1", kind: "Deployment", metadata: { name: pod.deployment, labels: metaLabels }, spec: { ...spec, replicas: 1 } }),
    );
  }
  for (const c of configMaps) {
    if (usedConfigMaps.has(c.metadata.name)) out.push(rename(c, named(c.metadata.name)));
    else dropped.push({ kind: "ConfigMap", name: c.metadata.name, why: "no pod that kube play runs reads it (the k6-operator's TestRun does)" });
  }
  out.push(...deploymentsOut);
  for (const o of objects) {
    if (o.kind === "Namespace") dropped.push({ kind: o.kind, name: o.metadata.name, why: `kube play has no namespaces: names get the prefix ${opts.prefix}-` });
    else if (o.kind === "Service")
      dropped.push({
        kind: o.kind,
        name: o.metadata.name,
        why: "kube play ignores Services: the name resolves through hostAliases, the ports are published on loopback",
      });
    else if (!["Deployment", "ConfigMap", "PersistentVolumeClaim"].includes(o.kind))
      dropped.push({ kind: o.kind, name: o.metadata.name, why: `kube play does not run ${o.kind} (${o.apiVersion})` });
  }
  for (const o of out)
    if (o.metadata.namespace && !namespaces.has(o.metadata.namespace))
      throw new Error(`${o.kind} ${o.metadata.name} is in namespace ${o.metadata.namespace}, which the run does not create`);
  const stripped = out.map(({ metadata: { namespace: _ns, ...metadata }, ...rest }) => ({ ...rest, metadata }) as KubeObject);
  return { yaml: stripped.map((o) => JSON.stringify(o, null, 2)).join("\n---\n") + "\n", objects: stripped, pods, published, dropped };
}

function rename(o: KubeObject, name: string): KubeObject {
  return { ...clone(o), metadata: { ...clone(o.metadata), name } };
}
