/**
 * target.json: what a benchmarked system declares about itself.
 *
 * Validated everywhere with this one schema (CLI, worker, web form). Errors
 * name the field, what is allowed and a hint (see formatManifestErrors).
 */
import { createHash } from "node:crypto";
import { z } from "zod";

export const SERVICES = ["postgres", "redis", "kafka"] as const;
export const Service = z.enum(SERVICES);
export type Service = z.infer<typeof Service>;

export const LANGUAGES = ["typescript", "javascript", "java", "kotlin", "scala", "csharp", "go", "rust", "python", "erlang", "elixir", "other"] as const;

export const CONSISTENCY = ["serializable", "per-entity-linearizable", "eventual"] as const;
export const MESSAGING = ["exactly-once", "at-least-once", "at-most-once", "synchronous"] as const;
/**
 * When a checkout is acknowledged, in the terms a crash test tells apart:
 * durable, after what it wrote was fsynced (it survives a crash of the
 * machine); unsynced, once its writes left the target's processes but
 * before an fsync (it survives kill -9 of every process, not a power cut: a
 * broker or a checkpoint that leaves flushing to the OS); in-memory, never
 * (lost with the processes). The board ranks within one level by default.
 */
export const DURABILITY = ["durable", "unsynced", "in-memory"] as const;
export type Durability = (typeof DURABILITY)[number];
/** How the implementation is written: the way the system's documentation teaches (idiomatic), or optimised for the benchmark (tuned, hidden from the leaderboard by default). */
export const IMPLEMENTATION = ["idiomatic", "tuned"] as const;
export type Implementation = (typeof IMPLEMENTATION)[number];
/** Who spreads requests over a multi-node target's nodes: sfbench's round-robin balancer, or the target itself (node 0 is its entry). */
export const NODE_ROUTING = ["balancer", "self"] as const;

const NAME_RE = /^[a-z0-9][a-z0-9-]{0,62}$/;
const VERSION_RE = /^\d+\.\d+\.\d+(?:[-+][0-9A-Za-z.-]+)?$/;
const IMAGE_RE = /^[a-z0-9]+(?:[._\-/:@][a-zA-Z0-9_.\-]+)*$/;

const Glob = z
  .string()
  .min(1)
  .refine((g) => !g.startsWith("/") && !g.split("/").includes(".."), {
    message: "must be a relative glob inside the target folder (no leading / and no ..)",
  });

export const TargetManifest = z.strictObject({
  $schema: z.string().optional(),
  name: z.string().regex(NAME_RE, { message: "must be 1-63 chars of a-z, 0-9 and -, starting with a letter or digit" }),
  system: z.string().min(1).max(100),
  version: z.string().regex(VERSION_RE, { message: "must be a semantic version like 1.2.3" }),
  description: z.string().max(2000).optional(),
  language: z.enum(LANGUAGES),
  guarantees: z.strictObject({
    consistency: z.enum(CONSISTENCY),
    messaging: z.enum(MESSAGING),
    durability: z.enum(DURABILITY),
  }),
  // no default: absent means idiomatic (manifestImplementation), and a default would change the digest of every manifest without the field
  implementation: z.enum(IMPLEMENTATION).optional(),
  port: z.number().int().min(1024).max(65535),
  health: z.string().startsWith("/").default("/health"),
  local: z
    .strictObject({
      command: z.array(z.string().min(1)).min(1),
      env: z.record(z.string().regex(/^[A-Z_][A-Z0-9_]*$/), z.string()).default({}),
      startupTimeoutSeconds: z.number().int().min(1).max(600).default(60),
    })
    .optional(),
  build: z
    .strictObject({
      command: z.array(z.string().min(1)).min(1),
      inputs: z.array(Glob).min(1),
      timeoutSeconds: z.number().int().min(1).max(3600).default(900),
    })
    .optional(),
  services: z.array(Service).default([]),
  image: z.string().regex(IMAGE_RE, { message: "must be an OCI image reference like ghcr.io/org/name:1.0" }).optional(),
  repository: z.url().optional(),
  tracing: z.boolean().default(false),
  // no default: a default would change the digest of every manifest without the field
  micro: z.boolean().optional(),
  // no defaults inside either: sfbench resolves absent fields itself (nodeSupport in resilience.ts)
  nodes: z
    .strictObject({
      max: z.number().int().min(2).max(64),
      routing: z.enum(NODE_ROUTING).optional(),
      command: z.array(z.string().min(1)).min(1).optional(),
      elastic: z.boolean().optional(),
    })
    .optional(),
  restart: z
    .strictObject({
      timeoutSeconds: z.number().int().min(1).max(3600).optional(),
    })
    .optional(),
  // the audit's reads are not measured: pacing them changes no published number (docs/targets.md)
  audit: z
    .strictObject({
      readsPerSecond: z.number().int().min(10).max(100_000).optional(),
    })
    .optional(),
  // nor is the populate phase's building of the co-purchase graph (the same argument); at 10/s a
  // profile's 20,000 checkouts end within the populate script's hour, slower would cut them short
  populate: z
    .strictObject({
      checkoutsPerSecond: z.number().int().min(10).max(100_000).optional(),
    })
    .optional(),
  loc: z.strictObject({
    app: z.array(Glob).min(1),
    gateway: z.array(Glob).default([]),
  }),
});
export type TargetManifest = z.infer<typeof TargetManifest>;
export type TargetManifestInput = z.input<typeof TargetManifest>;

/** Per top-level field: what is allowed and how to fix it. */
const HINTS: Record<string, string> = {
  name: 'a short slug such as "restate" or "node-postgres"; it names the target folder and the leaderboard row',
  system: 'the system being benchmarked, e.g. "Restate" or "Cloudflare Durable Objects"',
  version: 'the version of your implementation, e.g. "0.1.0"',
  language: `one of ${LANGUAGES.join(", ")}`,
  guarantees: `consistency: ${CONSISTENCY.join("|")}; messaging: ${MESSAGING.join("|")}; durability: ${DURABILITY.join("|")}`,
  implementation: `${IMPLEMENTATION.join("|")}: "idiomatic" (or absent) when the code uses the system the way its documentation teaches, "tuned" when it is optimised for this benchmark (tuned rows are hidden on the leaderboard unless asked for)`,
  port: "the TCP port the target listens on locally, 1024-65535",
  health: 'the health route, normally "/health"',
  local: 'how to start the target on one machine: {"command": ["node", "server.js"], "env": {...}}',
  build:
    '{"command": ["go", "build", "-o", "$SFBENCH_BUILD_DIR/app", "."], "inputs": ["go.mod", "**/*.go"]}: run in the target folder before a local start when the inputs changed; output goes to SFBENCH_BUILD_DIR',
  services: `a list drawn from ${SERVICES.join(", ")}; sfbench starts them and passes DATABASE_URL, REDIS_URL, KAFKA_BROKERS`,
  image: "the OCI image the cluster provider deploys",
  repository: "an https URL of the source repository",
  tracing: "true if the target writes span lines (SPEC 3) when SFBENCH_TRACE=1",
  micro: "true if the target implements the microbenchmark routes of SPEC 8 (/micro/empty, math, sleep, io, pingpong, divide, big); leave it out otherwise",
  nodes: `{"max": 4, "routing": "${NODE_ROUTING.join('"|"')}", "command": [...], "elastic": true}: the target runs as up to max processes that share its services; leave it out for a single-process target`,
  restart:
    '{"timeoutSeconds": 300}: time allowed until health answers 200 after a kill and a restart with the same data (default: local.startupTimeoutSeconds)',
  audit:
    '{"readsPerSecond": 200}: the audit after each cell reads the target at most this fast (10-100000; absent: as fast as 16 concurrent reads go), for a target that a burst of reads of many entities would overwhelm',
  populate:
    '{"checkoutsPerSecond": 25}: the analytics populate phase checks out at most this fast (10-100000; absent: as fast as 16 users in a closed loop go), for a target that many new entities at once would overwhelm',
  loc: '{"app": ["src/**/*.ts"], "gateway": ["src/http/**"]}: globs relative to target.json',
};

function closest(word: string, candidates: readonly string[]): string | undefined {
  const dist = (a: string, b: string) => {
    const d = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
    for (let j = 1; j <= b.length; j++) d[0]![j] = j;
    for (let i = 1; i <= a.length; i++)
      for (let j = 1; j <= b.length; j++) d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    return d[a.length]![b.length]!;
  };
  const best = candidates.map((c) => [c, dist(word, c)] as const).sort((x, y) => x[1] - y[1])[0];
  return best && best[1] <= Math.max(2, Math.floor(word.length / 3)) ? best[0] : undefined;
}

/** One line per problem: `<field>: <what is wrong> (allowed: ...; hint)`. */
export function formatManifestErrors(error: z.ZodError): string[] {
  return error.issues.map((issue) => {
    const path = issue.path.map(String);
    if (issue.code === "unrecognized_keys") {
      const where = path.length ? `${path.join(".")}.` : "";
      const known = path.length === 0 ? Object.keys(TargetManifest.shape) : [];
      return issue.keys
        .map((k) => {
          const guess = closest(k, known);
          return `${where}${k}: unknown field${guess ? ` (did you mean "${guess}"?)` : ""}; allowed fields: ${known.length ? known.filter((x) => x !== "$schema").join(", ") : "see docs/targets.md"}`;
        })
        .join("\n");
    }
    const field = path.join(".") || "(root)";
    const hint = HINTS[path[0] ?? ""];
    return `${field}: ${issue.message}${hint ? ` (allowed: ${hint})` : ""}`;
  });
}

export type ManifestResult = { ok: true; manifest: TargetManifest } | { ok: false; errors: string[] };

/** Validates parsed JSON as a manifest. Never throws. */
export function parseManifest(json: unknown): ManifestResult {
  const result = TargetManifest.safeParse(json);
  return result.success ? { ok: true, manifest: result.data } : { ok: false, errors: formatManifestErrors(result.error) };
}

/** Validates manifest text (JSON). Never throws; a JSON syntax error is one error line. */
export function parseManifestText(text: string): ManifestResult {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    return { ok: false, errors: [`(root): not valid JSON: ${(e as Error).message}`] };
  }
  return parseManifest(json);
}

/** sha256 of the canonical (key-sorted) JSON of a manifest: identifies a target version. */
export function manifestDigest(manifest: TargetManifest): string {
  const canonical = (v: unknown): unknown =>
    Array.isArray(v)
      ? v.map(canonical)
      : v && typeof v === "object"
        ? Object.fromEntries(
            Object.entries(v)
              .sort(([a], [b]) => a.localeCompare(b))
              .map(([k, x]) => [k, canonical(x)]),
          )
        : v;
  return (
    "sha256:" +
    createHash("sha256")
      .update(JSON.stringify(canonical(manifest)))
      .digest("hex")
  );
}

/** The implementation class a manifest declares; one without the field is idiomatic. */
export function manifestImplementation(manifest: Pick<TargetManifest, "implementation">): Implementation {
  return manifest.implementation ?? "idiomatic";
}
