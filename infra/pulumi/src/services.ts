/**
 * The services a target declares (PostgreSQL, Redis, Kafka), in the run's
 * namespace, one pod each. Durable storage is on by default: a
 * PersistentVolumeClaim per service and PostgreSQL with fsync,
 * synchronous_commit and full_page_writes on, Redis with an fsynced append-only
 * file; the settings are exported so the result records what "durable" meant.
 */
import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import type { Service } from "@sfbench/core";

export interface ServicesArgs {
  namespace: pulumi.Input<string>;
  services: readonly Service[];
  durable: boolean;
  runLabels: Record<string, string>;
}

interface Spec {
  image: string;
  port: number;
  args?: string[];
  env: Record<string, string>;
  mountPath: string;
  /** the URL or address the target gets, in the namespace's DNS */
  envName: "DATABASE_URL" | "REDIS_URL" | "KAFKA_BROKERS";
  url: (host: string) => string;
}

const SPECS: Record<Service, (durable: boolean) => Spec> = {
  postgres: (durable) => ({
    image: "postgres:17",
    port: 5432,
    args: [
      "-c",
      `fsync=${durable ? "on" : "off"}`,
      "-c",
      `synchronous_commit=${durable ? "on" : "off"}`,
      "-c",
      `full_page_writes=${durable ? "on" : "off"}`,
      "-c",
      "max_connections=400",
    ],
    env: { POSTGRES_HOST_AUTH_METHOD: "trust", PGDATA: "/var/lib/postgresql/data/pgdata" },
    mountPath: "/var/lib/postgresql/data",
    envName: "DATABASE_URL",
    url: (host) => `postgres://postgres@${host}:5432/postgres`,
  }),
  redis: (durable) => ({
    image: "redis:7.4",
    port: 6379,
    args: durable ? ["redis-server", "--appendonly", "yes", "--appendfsync", "always"] : ["redis-server", "--save", "", "--appendonly", "no"],
    env: {},
    mountPath: "/data",
    envName: "REDIS_URL",
    url: (host) => `redis://${host}:6379`,
  }),
  kafka: () => ({
    image: "apache/kafka:4.1.0",
    port: 9092,
    env: {
      KAFKA_NODE_ID: "1",
      KAFKA_PROCESS_ROLES: "broker,controller",
      KAFKA_LISTENERS: "PLAINTEXT://:9092,CONTROLLER://:9093",
      KAFKA_ADVERTISED_LISTENERS: "PLAINTEXT://kafka:9092",
      KAFKA_CONTROLLER_LISTENER_NAMES: "CONTROLLER",
      KAFKA_LISTENER_SECURITY_PROTOCOL_MAP: "CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT",
      KAFKA_CONTROLLER_QUORUM_VOTERS: "1@localhost:9093",
      KAFKA_OFFSETS_TOPIC_REPLICATION_FACTOR: "1",
      KAFKA_TRANSACTION_STATE_LOG_REPLICATION_FACTOR: "1",
      KAFKA_TRANSACTION_STATE_LOG_MIN_ISR: "1",
      KAFKA_SHARE_COORDINATOR_STATE_TOPIC_REPLICATION_FACTOR: "1",
      KAFKA_SHARE_COORDINATOR_STATE_TOPIC_MIN_ISR: "1",
      KAFKA_GROUP_INITIAL_REBALANCE_DELAY_MS: "0",
      KAFKA_LOG_DIRS: "/var/lib/kafka/data",
    },
    mountPath: "/var/lib/kafka/data",
    envName: "KAFKA_BROKERS",
    url: (host) => `${host}:9092`,
  }),
};

/** what the result's environment fingerprint records about in-cluster storage */
export function storageSettings(services: readonly Service[], durable: boolean): Record<string, Record<string, string>> {
  const out: Record<string, Record<string, string>> = {};
  if (services.includes("postgres")) {
    const v = durable ? "on" : "off";
    out.postgres = { instance: "dedicated", fsync: v, synchronous_commit: v, full_page_writes: v, volume: durable ? "persistent" : "ephemeral" };
  }
  if (services.includes("redis"))
    out.redis = { appendonly: durable ? "yes" : "no", appendfsync: durable ? "always" : "-", volume: durable ? "persistent" : "ephemeral" };
  if (services.includes("kafka")) out.kafka = { replication: "1", volume: durable ? "persistent" : "ephemeral" };
  return out;
}

export class InClusterServices extends pulumi.ComponentResource {
  /** environment for the target: DATABASE_URL, REDIS_URL, KAFKA_BROKERS, per declared service */
  readonly env: Record<string, string> = {};

  constructor(name: string, args: ServicesArgs, opts?: pulumi.ComponentResourceOptions) {
    super("sfbench:run:Services", name, {}, opts);
    for (const service of args.services) {
      const spec = SPECS[service](args.durable);
      const labels = { ...args.runLabels, "app.kubernetes.io/name": service, "app.kubernetes.io/component": "service" };
      const metadata = { name: service, namespace: args.namespace, labels };
      const claim = args.durable
        ? new k8s.core.v1.PersistentVolumeClaim(
            `${name}-${service}`,
            {
              metadata,
              spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "10Gi" } } },
            },
            { parent: this },
          )
        : undefined;
      new k8s.apps.v1.Deployment(
        `${name}-${service}`,
        {
          metadata,
          spec: {
            replicas: 1,
            strategy: { type: "Recreate" },
            selector: { matchLabels: labels },
            template: {
              metadata: { labels },
              spec: {
                containers: [
                  {
                    name: service,
                    image: spec.image,
                    ...(spec.args ? { args: spec.args } : {}),
                    env: Object.entries(spec.env).map(([n, value]) => ({ name: n, value })),
                    ports: [{ containerPort: spec.port }],
                    readinessProbe: { tcpSocket: { port: spec.port }, periodSeconds: 2 },
                    volumeMounts: [{ name: "data", mountPath: spec.mountPath }],
                  },
                ],
                volumes: [claim ? { name: "data", persistentVolumeClaim: { claimName: claim.metadata.name } } : { name: "data", emptyDir: {} }],
              },
            },
          },
        },
        { parent: this },
      );
      new k8s.core.v1.Service(
        `${name}-${service}`,
        {
          metadata,
          spec: { selector: labels, ports: [{ port: spec.port, targetPort: spec.port }] },
        },
        { parent: this },
      );
      this.env[spec.envName] = spec.url(service);
    }
    this.registerOutputs({ env: this.env });
  }
}
