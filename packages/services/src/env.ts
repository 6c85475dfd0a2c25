import { existsSync, readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { z } from "zod";

/** The directory of the package.json that declares "workspaces", found by walking up from this file. */
function findRepoRoot(start: string): string {
  for (let dir = start; ; dir = path.dirname(dir)) {
    const manifest = path.join(dir, "package.json");
    if (existsSync(manifest) && "workspaces" in JSON.parse(readFileSync(manifest, "utf8"))) return dir;
    if (path.dirname(dir) === dir) throw new Error(`no package.json with "workspaces" above ${start}`);
  }
}

const port = z.coerce.number().int().min(1024).max(65535);

const EnvSchema = z.object({
  /** Where service data, logs, pid files and locks live. */
  SFBENCH_HOME: z.string().min(1).optional(),
  /**
   * The machine's store of finished builds (targets' builds, k6), shared by
   * every clone on the machine; default `$XDG_CACHE_HOME/sfbench`.
   */
  SFBENCH_CACHE_DIR: z.string().min(1).optional(),
  XDG_CACHE_HOME: z.string().min(1).optional(),
  SFBENCH_PG_PORT: port.default(54329),
  SFBENCH_REDIS_PORT: port.default(63799),
  /** The Kafka broker port; the KRaft controller listens on the next port. */
  SFBENCH_KAFKA_PORT: port.max(65534).default(19092),
  PATH: z.string().default(""),
  HOME: z.string().optional(),
});

function readEnv() {
  const parsed = EnvSchema.safeParse(process.env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ");
    throw new Error(`invalid sfbench services environment: ${problems}`);
  }
  return parsed.data;
}

export const env = readEnv();

const root = findRepoRoot(path.dirname(fileURLToPath(import.meta.url)));

export const paths = {
  /** The monorepo root. */
  root,
  /** Service data (default `<root>/.sfbench`, gitignored). */
  home: path.resolve(root, env.SFBENCH_HOME ?? ".sfbench"),
  /**
   * Builds that never change between commits, kept outside the clone so a
   * fresh clone reuses them (default `~/.cache/sfbench`): `build/<target>/<key>/`, `bin/k6-*`.
   */
  cache: path.resolve(root, env.SFBENCH_CACHE_DIR ?? path.join(env.XDG_CACHE_HOME ?? path.join(env.HOME ?? os.homedir(), ".cache"), "sfbench")),
};

export const ports = {
  postgres: env.SFBENCH_PG_PORT,
  redis: env.SFBENCH_REDIS_PORT,
  kafka: env.SFBENCH_KAFKA_PORT,
  kafkaController: env.SFBENCH_KAFKA_PORT + 1,
};

/** Every service listens here and nowhere else. */
export const HOST = "127.0.0.1";
