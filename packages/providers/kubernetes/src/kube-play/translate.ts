/**
 * The rendered objects of a run as `podman kube play` (podman 4.3) runs them.
 * What kube play lacks, and what takes its place here:
 *
 * - Namespaces: none. Every name (Deployment, PVC, ConfigMap, volume, pod)
 *   gets the run's prefix, so two runs never share a pod or a volume.
 * - Services: ignored by kube play. Each Service's name (and its
 *   `<name>.<namespace>.svc.cluster.local` form) resolves in every pod through
 *   `hostAliases` to the static IP of the pod it selects (the caller passes
 *   `--ip` in pod order), and each of its ports is published on a loopback
 *   host port (`hostPort` + `hostIP: 127.0.0.1`), which is how the host (verify,
 *   seed, audit) reaches it.
 * - Replicas: kube play starts `replicas` pods of one template, all with the
 *   same host port, so the second cannot bind. A Deployment of N replicas
 *   becomes N Deployments of one replica (`<name>-<i>`), each with its own
 *   host ports; its Service resolves to replica 0 (no in-cluster balancing).
 * - emptyDir: kube play makes a named volume of the pod volume's name, shared
 *   by every pod that uses the name; it is renamed per Deployment.
 * - The k6-operator's TestRun: no operator runs it, so it becomes the runner
 *   pods the operator would start: `spec.parallelism` Pods (`restartPolicy:
 *   Never`, container `k6`, labels `k6_cr=<name>`, `runner=true`) of the
 *   runner image, running `k6 run` of the script with the TestRun's arguments,
 *   serving k6's REST API on 6565 and, with several runners, each its
 *   execution segment. Their IPs follow the Deployments' pods'. The script's
 *   ConfigMap holds the `k6 archive` as binaryData, which kube play 4.3 does
 *   not mount reliably: the caller writes its file into a host directory
 *   (`files`) and the runners mount that read-only where the operator mounts
 *   the ConfigMap; the ConfigMap itself is not played. Each runner comes with
 *   a YAML of its own too, so runners can be played beside a running run.
 * - Other kinds are dropped (and listed), and so is a ConfigMap no played pod
 *   reads.
 * - Images: the program names public images; the run names their stand-ins in
 *   the project's podman storage.
 *
 * Readiness probes and affinity are kept as rendered; kube play ignores them
 * (the caller waits for the published health route instead).
 */
import { z } from "zod";
import { KubeObject } from "@sfbench/infra-pulumi/render";

export const KubePlayOptions = z.strictObject({
  /** every name's prefix (the run's namespace) */
  prefix: z.string().regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/),
  /** loopback host ports to publish the Services' ports on, used in order */
  hostPorts: z.array(z.number().int().min(1).max(65535)),
  /** static pod IPs on the run's network, used in pod order (kube play's --ip) */
  podIps: z.array(z.ipv4()),
  /** the program's image -> the image in the project's podman storage */
  images: z.record(z.string(), z.string()).default({}),
  /** a TestRun's script ConfigMap (its rendered name) -> the host directory holding its files, which the runners mount in its place */
  files: z.record(z.string(), z.string().startsWith("/")).default({}),
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

export interface RunnerPod {
  /** the pod's name: `<prefix>-<testrun>-<i>`, as the operator names its runner jobs `<testrun>-<i>` */
  pod: string;
  testRun: string;
  /** from 1, as the operator counts its runners */
  index: number;
  ip: string;
  /** the runner's container: `<pod>-k6` */
  container: string;
  /** the pod alone, to play it beside a run already playing (`--ip` this runner's) */
  yaml: string;
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
  /** the Deployments' pods; the caller's `--ip` list is these, then the runners, in order */
  pods: PlayedPod[];
  /** the runner pods of the TestRuns, after the Deployments' objects in `objects` and `yaml` */
  runners: RunnerPod[];
  published: PublishedPort[];
  dropped: { kind: string; name: string; why: string }[];
}

interface Container {
  name: string;
  image: string;
  ports?: { containerPort: number; hostPort?: number; hostIP?: string; name?: string }[];
  env?: { name: string; value?: string; valueFrom?: { configMapKeyRef?: { name: string } } }[];
  envFrom?: { configMapRef?: { name: string } }[];
  volumeMounts?: { name: string; mountPath: string; readOnly?: boolean }[];
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
/** what the operator reads of a TestRun (k6.io/v1alpha1) */
export interface TestRunSpec {
  parallelism?: number;
  script: { configMap: { name: string; file: string } };
  arguments?: string;
  runner?: {
    image?: string;
    env?: { name: string; value?: string }[];
    metadata?: { labels?: Record<string, string> };
    affinity?: object;
    resources?: object;
  };
}
interface ServiceSpec {
  selector: Record<string, string>;
  ports: { port: number; targetPort?: number | string }[];
}

const clone = <T>(v: T): T => structuredClone(v);
/** the operator's default runner image (k6-operator's own), for a TestRun that names none */
const OPERATOR_RUNNER_IMAGE = "grafana/k6:latest";
/** where the operator mounts the script's ConfigMap in a runner, and the port of k6's REST API it makes runners serve */
const SCRIPT_DIR = "/test";
const API_PORT = 6565;
/** a DNS-1123 label (a pod's hostname): at most 63 characters, as Kubernetes cuts a long pod name for it */
const hostnameOf = (name: string) => name.slice(0, 63).replace(/[-.]+$/, "");

/** The execution segment of runner `index` (from 1) of `total`, as the operator passes it (no segments for one runner). */
export function executionSegment(index: number, total: number): string[] {
  if (total <= 1) return [];
  const point = (i: number) => (i === 0 ? "0" : i === total ? "1" : `${i}/${total}`);
  const sequence = Array.from({ length: total + 1 }, (_, i) => point(i)).join(",");
  return [`--execution-segment=${point(index - 1)}:${point(index)}`, `--execution-segment-sequence=${sequence}`];
}

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
  const testRuns = objects.filter((o) => o.kind === "TestRun");
  // the runners' IPs follow the Deployments' pods'
  let nextIp = pods.length;
  const runners = testRuns.flatMap((t) =>
    runnerPods(t, opts, {
      named,
      aliases,
      configMaps,
      ipOf: (index) => {
        const ip = opts.podIps[nextIp++];
        if (!ip) throw new Error(`${opts.podIps.length} pod IPs for more pods (runner ${index} of TestRun ${t.metadata.name} is pod ${nextIp})`);
        return ip;
      },
    }),
  );
  const scripts = new Set(testRuns.map((t) => (t.spec as TestRunSpec).script.configMap.name));
  for (const c of configMaps) {
    if (usedConfigMaps.has(c.metadata.name)) out.push(rename(c, named(c.metadata.name)));
    else if (!scripts.has(c.metadata.name)) dropped.push({ kind: "ConfigMap", name: c.metadata.name, why: "no pod that kube play runs reads it" });
  }
  out.push(...deploymentsOut, ...runners.map((r) => r.object));
  for (const o of objects) {
    if (o.kind === "Namespace") dropped.push({ kind: o.kind, name: o.metadata.name, why: `kube play has no namespaces: names get the prefix ${opts.prefix}-` });
    else if (o.kind === "Service")
      dropped.push({
        kind: o.kind,
        name: o.metadata.name,
        why: "kube play ignores Services: the name resolves through hostAliases, the ports are published on loopback",
      });
    else if (!["Deployment", "ConfigMap", "PersistentVolumeClaim", "TestRun"].includes(o.kind))
      dropped.push({ kind: o.kind, name: o.metadata.name, why: `kube play does not run ${o.kind} (${o.apiVersion})` });
  }
  for (const o of out)
    if (o.metadata.namespace && !namespaces.has(o.metadata.namespace))
      throw new Error(`${o.kind} ${o.metadata.name} is in namespace ${o.metadata.namespace}, which the run does not create`);
  const stripped = out.map(({ metadata: { namespace: _ns, ...metadata }, ...rest }) => ({ ...rest, metadata }) as KubeObject);
  return {
    yaml: stripped.map((o) => JSON.stringify(o, null, 2)).join("\n---\n") + "\n",
    objects: stripped,
    pods,
    runners: runners.map(({ object: _object, ...r }) => r),
    published,
    dropped,
  };
}

/** The runner pods the k6-operator would start for a TestRun, with its script mounted from the host directory the caller gave. */
function runnerPods(
  t: KubeObject,
  opts: z.output<typeof KubePlayOptions>,
  run: { named: (name: string) => string; aliases: { ip: string; hostnames: string[] }[]; configMaps: KubeObject[]; ipOf: (index: number) => string },
): (RunnerPod & { object: KubeObject })[] {
  const spec = t.spec as TestRunSpec;
  const { name: configMapName, file } = spec.script.configMap;
  if (!run.configMaps.some((c) => c.metadata.name === configMapName))
    throw new Error(`TestRun ${t.metadata.name} reads ConfigMap ${configMapName}, which the program does not render`);
  const hostDir = opts.files[configMapName];
  if (!hostDir)
    throw new Error(
      `TestRun ${t.metadata.name} reads its script from ConfigMap ${configMapName}, which kube play cannot mount (binaryData): ` +
        `write its ${file} into a host directory and pass it as files["${configMapName}"]`,
    );
  const runner = spec.runner ?? {};
  const total = spec.parallelism ?? 1;
  const args = (spec.arguments ?? "").split(/\s+/).filter(Boolean);
  const image = runner.image ?? OPERATOR_RUNNER_IMAGE;
  return Array.from({ length: total }, (_, i) => {
    const index = i + 1;
    const pod = run.named(`${t.metadata.name}-${index}`);
    const object = KubeObject.parse({
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: pod, labels: { ...runner.metadata?.labels, app: "k6", k6_cr: t.metadata.name, runner: "true" } },
      spec: {
        hostname: hostnameOf(pod),
        restartPolicy: "Never",
        ...(runner.affinity ? { affinity: clone(runner.affinity) } : {}),
        ...(run.aliases.length ? { hostAliases: clone(run.aliases) } : {}),
        containers: [
          {
            name: "k6",
            image: opts.images[image] ?? image,
            args: ["run", `${SCRIPT_DIR}/${file}`, ...args, `--address=0.0.0.0:${API_PORT}`, ...executionSegment(index, total)],
            env: clone(runner.env ?? []),
            // no `ports`: kube play 4.3 publishes a containerPort without a hostPort on the host's same port, and two runners (or two runs) would collide; the API is reached at the pod's IP
            ...(runner.resources ? { resources: clone(runner.resources) } : {}),
            volumeMounts: [{ name: "k6-test-volume", mountPath: SCRIPT_DIR, readOnly: true }],
          },
        ],
        volumes: [{ name: "k6-test-volume", hostPath: { path: hostDir, type: "Directory" } }],
      },
    });
    return { pod, testRun: t.metadata.name, index, ip: run.ipOf(index), container: `${pod}-k6`, yaml: JSON.stringify(object, null, 2) + "\n", object };
  });
}

function rename(o: KubeObject, name: string): KubeObject {
  return { ...clone(o), metadata: { ...clone(o.metadata), name } };
}
