/**
 * A team's own folder with the CLI as `npm pack` publishes it: the tarball
 * installed there (outside the workspace), and `npx sfbench` run in it with
 * none of the workspace's environment that would point back into it. Used
 * by packed.test.ts and by the worker's end-to-end image submission.
 */
import { execFile } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { writeFileSync } from "node:fs";

const CLI_PACKAGE = fileURLToPath(new URL("..", import.meta.url));
const run = promisify(execFile);

export type TeamNpx = (args: string[]) => Promise<{ code: number; stdout: string; stderr: string }>;

/** Packs the CLI into `home`, installs it into `team` (which gets a package.json of its own) and returns `npx sfbench` there. */
export async function installPackedCli(home: string, team: string): Promise<TeamNpx> {
  const { stdout } = await run("npm", ["pack", "--silent", "--pack-destination", home], { cwd: CLI_PACKAGE, maxBuffer: 16 << 20 });
  writeFileSync(join(team, "package.json"), JSON.stringify({ name: "my-system", private: true }));
  await run("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline", join(home, stdout.trim().split("\n").at(-1)!)], {
    cwd: team,
    maxBuffer: 16 << 20,
  });
  return async (args) => {
    const env = {
      PATH: process.env.PATH!,
      HOME: home,
      SFBENCH_CONFIG_DIR: join(home, "config"),
      npm_config_cache: process.env.npm_config_cache ?? join(process.env.HOME ?? home, ".npm"),
    };
    try {
      const { stdout: out, stderr } = await run("npx", ["--no-install", "sfbench", ...args], { cwd: team, env, maxBuffer: 16 << 20 });
      return { code: 0, stdout: out, stderr };
    } catch (e) {
      const err = e as { code: number; stdout: string; stderr: string };
      return { code: err.code, stdout: err.stdout, stderr: err.stderr };
    }
  };
}
