/** The worker's environment, read once and checked at start. */
import { Profile } from "@sfbench/core";
import { z } from "zod";

const Env = z.object({
  REDIS_URL: z.url().optional().describe("default: the local sfbench Redis"),
  SFBENCH_QUEUE: z
    .string()
    .regex(/^[a-z0-9:_-]{1,64}$/)
    .default("runs"),
  SFBENCH_RESULTS_DIR: z.string().min(1).optional().describe("default: <repo>/results"),
  SFBENCH_TARGETS_DIR: z.string().min(1).optional().describe("bundled targets; default: <repo>/packages/targets"),
  SFBENCH_WORKER_ATTEMPTS: z.coerce.number().int().min(1).max(10).default(3),
  /** the reference campaign of every registered system, every this many hours (0: never) */
  SFBENCH_REFERENCE_EVERY_HOURS: z.coerce.number().min(0).max(2160).default(0),
  SFBENCH_REFERENCE_TRIALS: z.coerce.number().int().min(1).max(20).default(3),
  SFBENCH_REFERENCE_PROFILE: Profile.default("standard"),
  /** the operator's account, as the portal reads it: it submits the reference campaign */
  SFBENCH_OPERATOR_EMAIL: z.email().optional(),
});
export type WorkerEnv = z.infer<typeof Env>;

export function readEnv(source: NodeJS.ProcessEnv = process.env): WorkerEnv {
  const r = Env.safeParse(source);
  if (!r.success) {
    const problems = r.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ");
    throw new Error(`invalid worker environment: ${problems}`);
  }
  return r.data;
}
