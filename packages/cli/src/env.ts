/** The CLI's environment, read once. */
import { homedir } from "node:os";
import { join } from "node:path";
import { z } from "zod";

const Env = z.object({
  SFBENCH_SERVER: z.url().optional(),
  SFBENCH_TOKEN: z.string().min(1).optional(),
  SFBENCH_CONFIG_DIR: z.string().min(1).optional(),
});

const parsed = Env.safeParse(process.env);
if (!parsed.success) {
  process.stderr.write(`error: ${parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}\n`);
  process.exit(2);
}
export const env = parsed.data;
export const DEFAULT_SERVER = "http://127.0.0.1:3000";
export const configDir = () => env.SFBENCH_CONFIG_DIR ?? join(homedir(), ".config", "sfbench");
