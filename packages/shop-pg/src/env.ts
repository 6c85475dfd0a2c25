/**
 * The environment every target of this package reads, checked with zod once,
 * in the target's env.ts; a target extends ShopEnv with its own variables.
 */
import { z } from "zod";

export const ShopEnv = z.object({
  PORT: z.coerce.number().int().min(1).max(65535).default(8080),
  HOST: z.string().min(1).default("127.0.0.1"),
  DATABASE_URL: z.string().min(1, "is required: a postgres:// URL"),
  SFBENCH_TRACE: z
    .enum(["0", "1", "true", "false", ""])
    .default("0")
    .transform((v) => v === "1" || v === "true"),
  PG_POOL_SIZE: z.coerce.number().int().min(1).max(1000).default(20),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
});
export type ShopEnv = z.infer<typeof ShopEnv>;

/** Parses `source` with `schema`; an invalid environment throws, naming every variable at fault. */
export function parseEnv<S extends z.ZodType>(schema: S, source: NodeJS.ProcessEnv): z.infer<S> {
  const result = schema.safeParse(source);
  if (!result.success) {
    const problems = result.error.issues.map((i) => `  ${i.path.join(".")}: ${i.message}`).join("\n");
    throw new Error(`invalid environment:\n${problems}`);
  }
  return result.data;
}
