/**
 * The target under test: a Deployment of its image with one pod per node
 * (required anti-affinity on the hostname), requests = limits sized from the
 * machine type, a readiness probe on its health route, and a Service that the
 * load and the worker's verify and audit reach it through.
 *
 * Confined as a container run on one machine is: no capabilities, none to
 * gain, the image's files read-only; the pod writes to /data (its
 * SFBENCH_DATA_DIR, an emptyDir on the node's disk) and /tmp (an emptyDir in
 * memory, counted in its limit), nowhere else.
 */
import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import type { PodResources } from "./machine.ts";

export interface TargetArgs {
  namespace: pulumi.Input<string>;
  name: string;
  image: string;
  port: number;
  health: string;
  replicas: number;
  resources: PodResources;
  env: Record<string, string>;
  runLabels: Record<string, string>;
}

export class TargetWorkload extends pulumi.ComponentResource {
  /** http://<service>.<namespace>.svc.cluster.local:<port> */
  readonly url: pulumi.Output<string>;
  readonly labels: Record<string, string>;

  constructor(name: string, args: TargetArgs, opts?: pulumi.ComponentResourceOptions) {
    super("sfbench:run:Target", name, {}, opts);
    this.labels = { ...args.runLabels, "app.kubernetes.io/name": args.name, "app.kubernetes.io/component": "target" };
    const metadata = { name: "target", namespace: args.namespace, labels: this.labels };
    const env = { ...args.env, PORT: String(args.port), HOST: "0.0.0.0", SFBENCH_DATA_DIR: "/data" };
    new k8s.apps.v1.Deployment(
      `${name}-target`,
      {
        metadata,
        spec: {
          replicas: args.replicas,
          selector: { matchLabels: this.labels },
          template: {
            metadata: { labels: this.labels },
            spec: {
              affinity: {
                podAntiAffinity: {
                  requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: this.labels }, topologyKey: "kubernetes.io/hostname" }],
                },
              },
              terminationGracePeriodSeconds: 10,
              containers: [
                {
                  name: "target",
                  image: args.image,
                  env: Object.entries(env)
                    .sort(([a], [b]) => a.localeCompare(b))
                    .map(([n, value]) => ({ name: n, value })),
                  ports: [{ name: "http", containerPort: args.port }],
                  resources: { requests: { ...args.resources }, limits: { ...args.resources } },
                  readinessProbe: { httpGet: { path: args.health, port: args.port }, periodSeconds: 2, failureThreshold: 3 },
                  securityContext: { readOnlyRootFilesystem: true, allowPrivilegeEscalation: false, capabilities: { drop: ["ALL"] } },
                  volumeMounts: [
                    { name: "data", mountPath: "/data" },
                    { name: "tmp", mountPath: "/tmp" },
                  ],
                },
              ],
              volumes: [
                { name: "data", emptyDir: {} },
                { name: "tmp", emptyDir: { medium: "Memory" } },
              ],
            },
          },
        },
      },
      { parent: this },
    );
    const service = new k8s.core.v1.Service(
      `${name}-target`,
      {
        metadata,
        spec: { selector: this.labels, ports: [{ name: "http", port: args.port, targetPort: args.port }] },
      },
      { parent: this },
    );
    this.url = pulumi.interpolate`http://${service.metadata.name}.${service.metadata.namespace}.svc.cluster.local:${args.port}`;
    this.registerOutputs({ url: this.url });
  }
}
