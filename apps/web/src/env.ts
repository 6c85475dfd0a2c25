/**
 * The environment of the portal, read once and checked with zod at startup
 * (instrumentation.ts imports it). Without DATABASE_URL the portal uses the
 * `sfbench` database on the local PostgreSQL (@sfbench/db decides).
 */
import { z } from "zod";

const EnvSchema = z.object({
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\/\S+$/, { message: "must be a PostgreSQL URL like postgres://user:password@host:5432/sfbench" })
    .optional(),
  /** the public origin(s) of the portal, comma-separated (e.g. https://sfbench.dev); mutations from other origins are refused */
  SFBENCH_PUBLIC_ORIGIN: z
    .string()
    .optional()
    .transform((value, ctx) => {
      const origins = (value ?? "")
        .split(",")
        .map((s) => s.trim())
        .filter(Boolean);
      for (const origin of origins) {
        if (!URL.canParse(origin) || new URL(origin).origin !== origin) {
          ctx.addIssue({ code: "custom", message: `"${origin}" is not an origin like https://sfbench.dev (scheme and host, no path)` });
        }
      }
      return origins;
    }),
  /** submissions a user may make per hour */
  SFBENCH_SUBMISSIONS_PER_HOUR: z.coerce.number().int().positive().default(10),
  /** the machine class the board opens on (its reference environment, e.g. "2 cores, AMD EPYC 9B14, 24 GiB"); default: the local population with the most ranked systems */
  SFBENCH_REFERENCE_MACHINE: z.string().min(1).max(200).optional(),
  /** how long the leaderboard's data may be served from memory (0: never) */
  SFBENCH_LEADERBOARD_CACHE_SECONDS: z.coerce.number().int().min(0).max(3600).default(10),
  /** the operator's account (its address verified): the only one that may submit the bundled targets' names (packages/targets/*) */
  SFBENCH_OPERATOR_EMAIL: z
    .email({ message: "must be the operator's email address, like operator@example.com" })
    .transform((e) => e.toLowerCase())
    .optional(),
  /** the SMTP server that sends verification links; without it the links are written to the portal's log */
  SFBENCH_SMTP_HOST: z.string().min(1).optional(),
  SFBENCH_SMTP_PORT: z.coerce.number().int().min(1).max(65535).default(25),
  /** the sender of the portal's mail */
  SFBENCH_SMTP_FROM: z.string().min(3).default("sfbench <no-reply@sfbench.local>"),
  /** how long a verification link works */
  SFBENCH_VERIFICATION_HOURS: z.coerce
    .number()
    .int()
    .positive()
    .max(24 * 30)
    .default(24),
  /** verification mails an account may ask for per hour (sign-up's included) */
  SFBENCH_VERIFICATION_EMAILS_PER_HOUR: z.coerce.number().int().positive().default(5),
  /** reverse proxies in front of the portal that append to X-Forwarded-For (the client's address for throttling) */
  SFBENCH_TRUSTED_PROXIES: z.coerce.number().int().min(0).max(5).default(0),
  /** sign-in attempts (failed or under way) per account per 15 minutes */
  SFBENCH_SIGNIN_ATTEMPTS_PER_ACCOUNT: z.coerce.number().int().positive().default(10),
  /** sign-in attempts (failed or under way) per client address per 15 minutes */
  SFBENCH_SIGNIN_ATTEMPTS_PER_ADDRESS: z.coerce.number().int().positive().default(50),
  /** sign-ups per client address per hour */
  SFBENCH_SIGNUPS_PER_ADDRESS: z.coerce.number().int().positive().default(5),
  /** where the portal keeps uploaded files (image and source archives); default <repo>/.sfbench/portal */
  SFBENCH_DATA_DIR: z.string().min(1).optional(),
  /** the largest image archive (podman save / docker save tar) an upload may be, in MiB */
  SFBENCH_IMAGE_ARCHIVE_MAX_MIB: z.coerce.number().int().positive().default(4096),
  /** the largest source archive (the files a manifest's loc globs select) an upload may be, in MiB */
  SFBENCH_SOURCE_ARCHIVE_MAX_MIB: z.coerce.number().int().positive().default(64),
  /** uploads a user may hold that no submission has claimed yet; past it a new upload is refused (429) */
  SFBENCH_UNCLAIMED_UPLOADS: z.coerce.number().int().positive().default(10),
  /** an unclaimed upload older than this many hours is deleted (when its owner uploads again) */
  SFBENCH_UNCLAIMED_UPLOAD_HOURS: z.coerce
    .number()
    .int()
    .positive()
    .max(24 * 30)
    .default(24),
  /** image archives kept per system: those of its newest this many versions (and of any version with a run queued or running); older ones are removed from disk */
  SFBENCH_KEEP_IMAGE_ARCHIVES: z.coerce.number().int().positive().max(1000).default(3),
  /** how long a sign-in lasts */
  SFBENCH_SESSION_DAYS: z.coerce.number().int().positive().max(365).default(30),
});

export type Env = z.infer<typeof EnvSchema>;

function readEnv(): Env {
  const parsed = EnvSchema.safeParse(process.env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ");
    throw new Error(`invalid portal environment: ${problems}`);
  }
  return parsed.data;
}

export const env = readEnv();
