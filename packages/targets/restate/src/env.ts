/**
 * The environment of the three entry points (launcher, service endpoint,
 * gateway), each read once and checked with zod. The launcher gets what the
 * local provider passes (PORT, HOST, SFBENCH_TRACE, SFBENCH_DATA_DIR) and hands
 * its children the ports it chose.
 */
import { z } from "zod";

const Port = z.coerce.number().int().min(1).max(65535);
const Flag = z
  .enum(["0", "1", "true", "false", ""])
  .default("0")
  .transform((v) => v === "1" || v === "true");
const LogLevel = z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info");

const LauncherEnv = z.object({
  PORT: Port.default(8080),
  HOST: z.string().min(1).default("127.0.0.1"),
  SFBENCH_TRACE: Flag,
  SFBENCH_DATA_DIR: z.string().min(1, "is required: the directory where Restate keeps its data"),
  /** the cores the run gives the target (the local provider sets it before the start); absent: the cores this process may use */
  SFBENCH_CPUS: z.coerce.number().int().min(1).max(1024).optional(),
  /** seconds allowed for the Restate server to come up and the deployment to register */
  RESTATE_STARTUP_TIMEOUT: z.coerce.number().int().min(1).max(600).default(90),
});

const ServiceEnv = z.object({
  SERVICE_PORT: Port,
  SFBENCH_TRACE: Flag,
});

const GatewayEnv = z.object({
  PORT: Port.default(8080),
  HOST: z.string().min(1).default("127.0.0.1"),
  /** the Restate ingress, e.g. http://127.0.0.1:18091 */
  RESTATE_INGRESS_URL: z.url(),
  SFBENCH_TRACE: Flag,
  /** connections from the gateway to the ingress */
  INGRESS_CONNECTIONS: z.coerce.number().int().min(1).max(4096).default(128),
  LOG_LEVEL: LogLevel,
});

export type LauncherEnv = z.infer<typeof LauncherEnv>;
export type ServiceEnv = z.infer<typeof ServiceEnv>;
export type GatewayEnv = z.infer<typeof GatewayEnv>;

function read<T>(schema: z.ZodType<T>, source: NodeJS.ProcessEnv): T {
  const result = schema.safeParse(source);
  if (!result.success) {
    const problems = result.error.issues.map((i) => `  ${i.path.join(".")}: ${i.message}`).join("\n");
    throw new Error(`invalid environment:\n${problems}`);
  }
  return result.data;
}

export const readLauncherEnv = (source: NodeJS.ProcessEnv = process.env): LauncherEnv => read(LauncherEnv, source);
export const readServiceEnv = (source: NodeJS.ProcessEnv = process.env): ServiceEnv => read(ServiceEnv, source);
export const readGatewayEnv = (source: NodeJS.ProcessEnv = process.env): GatewayEnv => read(GatewayEnv, source);

/** The environment a child process starts from: the launcher's own, plus what it sets. */
export const inheritedEnv = (): NodeJS.ProcessEnv => process.env;
