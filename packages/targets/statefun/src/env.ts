/**
 * The environment of the launcher and the gateway, read once and checked with
 * zod. The provider sets PORT, HOST, KAFKA_BROKERS, SFBENCH_DATA_DIR,
 * SFBENCH_BUILD_DIR and SFBENCH_TRACE; the launcher adds the STATEFUN_*
 * topic names for its children.
 */
import { z } from "zod";

const flag = z
  .enum(["0", "1", "true", "false", ""])
  .default("0")
  .transform((v) => v === "1" || v === "true");

const LauncherEnv = z.object({
  PORT: z.coerce.number().int().min(1).max(65535).default(18900),
  KAFKA_BROKERS: z.string().min(1, "is required: host:port[,host:port...] of the Kafka brokers"),
  SFBENCH_DATA_DIR: z.string().min(1, "is required: a directory for checkpoints"),
  SFBENCH_BUILD_DIR: z.string().min(1, "is required: where `sfbench target build statefun` put the job's jars"),
  /** Flink checkpoint interval */
  STATEFUN_CHECKPOINT_MS: z.coerce.number().int().min(100).max(3_600_000).default(5000),
  /** Flink parallelism, and partitions of the request topic */
  STATEFUN_PARALLELISM: z.coerce.number().int().min(1).max(64).default(1),
  /** the JVM's -Xmx */
  STATEFUN_JVM_HEAP: z
    .string()
    .regex(/^\d+[mg]$/, "must look like 512m or 1g")
    .default("1g"),
});

const GatewayEnv = z.object({
  PORT: z.coerce.number().int().min(1).max(65535).default(18900),
  HOST: z.string().min(1).default("127.0.0.1"),
  KAFKA_BROKERS: z.string().min(1, "is required: host:port[,host:port...] of the Kafka brokers"),
  STATEFUN_INGRESS_TOPIC: z.string().min(1, "is required (set by the launcher)"),
  STATEFUN_EGRESS_TOPIC: z.string().min(1, "is required (set by the launcher)"),
  SFBENCH_TRACE: flag,
  /** a request without an answer after this long is answered 504 no-answer (below k6's 10 s timeout) */
  GATEWAY_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(8000),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
});

export type LauncherEnv = z.infer<typeof LauncherEnv>;
export type GatewayEnv = z.infer<typeof GatewayEnv>;

function read<T>(schema: z.ZodType<T>, source: NodeJS.ProcessEnv): T {
  const result = schema.safeParse(source);
  if (!result.success) {
    const problems = result.error.issues.map((i) => `  ${i.path.join(".")}: ${i.message}`).join("\n");
    throw new Error(`invalid environment:\n${problems}`);
  }
  return result.data;
}

export const readLauncherEnv = (source: NodeJS.ProcessEnv = process.env) => read(LauncherEnv, source);
export const readGatewayEnv = (source: NodeJS.ProcessEnv = process.env) => read(GatewayEnv, source);

/** The environment the launcher's children inherit (the launcher passes its own on, plus the topic names). */
export function childEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  return { ...process.env, ...extra };
}
