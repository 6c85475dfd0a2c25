/**
 * The launcher's environment (zod, read once). The local provider passes
 * PORT, HOST, SFBENCH_TRACE and SFBENCH_DATA_DIR.
 */
import { z } from "zod";

const Env = z.object({
  PORT: z.coerce.number().int().min(1).max(65535).default(8080),
  HOST: z.string().min(1).default("127.0.0.1"),
  SFBENCH_TRACE: z.enum(["0", "1"]).default("0"),
  SFBENCH_DATA_DIR: z.string().min(1, "the directory where Durable Object storage is persisted"),
});
export type LauncherEnv = z.infer<typeof Env>;

export function readEnv(source: NodeJS.ProcessEnv = process.env): LauncherEnv {
  const result = Env.safeParse(source);
  if (!result.success) {
    const problems = result.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ");
    throw new Error(`bad environment: ${problems}`);
  }
  return result.data;
}

/** Points os.tmpdir() (Miniflare's scratch directory) at `dir`. */
export function useTempDir(dir: string): void {
  process.env.TMPDIR = dir;
}
