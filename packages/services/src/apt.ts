/**
 * A Debian package that something of sfbench needs on this machine (redis-server,
 * chromium, python3-venv, fuse3, podman's parts), installed with apt-get when it
 * is missing: idempotent, only as root on a machine that has apt-get (else a
 * MissingPrerequisiteError naming the command to run), `apt-get update` once
 * when the first try fails (a new machine's package lists may be empty). Two
 * installs at once (the test lanes run side by side) wait for dpkg's lock
 * instead of failing on it.
 */
import { env } from "./env.ts";
import { CommandError, findExecutable, run } from "./process.ts";
import { MissingPrerequisiteError, type Progress } from "./types.ts";

export interface AptNeed {
  /** true once the package's program is there (checked before and after installing) */
  present: () => boolean;
  /** what needs it, for the messages: "lossyfs mounts through fusermount3" */
  why: string;
  pathEnv?: string | undefined;
  /** whether this runs as root (default: asks the process) */
  isRoot?: boolean | undefined;
  progress?: Progress | undefined;
  /** --no-install-recommends (chromium's recommends are a desktop) */
  noRecommends?: boolean;
  timeoutMs?: number;
}

export async function aptInstall(packages: string[], need: AptNeed): Promise<void> {
  if (need.present()) return;
  const command = `apt-get install -y ${packages.join(" ")}`;
  const aptGet = findExecutable("apt-get", need.pathEnv ?? env.PATH);
  if (!(need.isRoot ?? process.getuid?.() === 0) || !aptGet) throw new MissingPrerequisiteError(`${need.why}, which is not installed: run \`sudo ${command}\``);
  need.progress?.(`installing ${packages.join(", ")} with apt-get`);
  const aptEnv = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
  const timeoutMs = need.timeoutMs ?? 900_000;
  const apt = (args: string[]) => run(aptGet, ["-o", "DPkg::Lock::Timeout=900", ...args], { env: aptEnv, timeoutMs });
  const install = () => apt(["install", "-y", ...(need.noRecommends ? ["--no-install-recommends"] : []), ...packages]);
  try {
    await install().catch(async () => {
      await apt(["update"]);
      await install();
    });
  } catch (e) {
    const output = e instanceof CommandError ? e.output.trim().split("\n").slice(-5).join("\n") : (e as Error).message;
    throw new MissingPrerequisiteError(`${command} failed (${need.why}): ${output}`);
  }
  if (!need.present()) throw new MissingPrerequisiteError(`apt-get installed ${packages.join(", ")}, but ${need.why} still finds nothing`);
}
