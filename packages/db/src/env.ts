/**
 * The environment of @sfbench/db, read once. Without DATABASE_URL the database is
 * `sfbench` on the local PostgreSQL that @sfbench/services runs (127.0.0.1:54329).
 */
import { z } from "zod";

const EnvSchema = z.object({
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\/\S+$/, { message: "must be a PostgreSQL URL like postgres://user:password@host:5432/sfbench" })
    .optional(),
});

function readEnv() {
  const parsed = EnvSchema.safeParse(process.env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ");
    throw new Error(`invalid database environment: ${problems}`);
  }
  return parsed.data;
}

export const env = readEnv();
