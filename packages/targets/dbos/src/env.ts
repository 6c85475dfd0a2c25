/** The environment of main.ts, read once and checked with zod. */
import { z } from "zod";

const Env = z.object({
  PORT: z.coerce.number().int().min(1).max(65535).default(8080),
  HOST: z.string().min(1).default("127.0.0.1"),
  DATABASE_URL: z.string().min(1, "is required: a postgres:// URL"),
  SFBENCH_TRACE: z
    .enum(["0", "1", "true", "false", ""])
    .default("0")
    .transform((v) => v === "1" || v === "true"),
  PG_POOL_SIZE: z.coerce.number().int().min(1).max(1000).default(20),
  DBOS_POOL_SIZE: z.coerce.number().int().min(1).max(1000).default(20),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
});
export type Env = z.infer<typeof Env>;

export function readEnv(source: NodeJS.ProcessEnv = process.env): Env {
  const result = Env.safeParse(source);
  if (!result.success) {
    const problems = result.error.issues.map((i) => `  ${i.path.join(".")}: ${i.message}`).join("\n");
    throw new Error(`invalid environment:\n${problems}`);
  }
  return result.data;
}
