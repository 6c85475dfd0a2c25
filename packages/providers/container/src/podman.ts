/**
 * podman as the project runs it: its configuration and its storage under
 * .sfbench/podman/ (the project's images and containers are its own, apart
 * from anything else on the machine), and one way to call it.
 *
 * Why each setting (measured on Debian 12 with podman 4.3):
 * - runtime runc: crun fails on this kernel's cgroup v1 hybrid layout.
 * - cgroup_manager cgroupfs: no systemd runs here to delegate cgroups.
 * - default_ulimits: podman would ask runc for a nofile limit above what this
 *   machine grants (runc then fails with "error setting rlimit type 7"), so
 *   it asks for the hard limit sfbench itself has, which runc may set. A
 *   target may need it: durable-objects' workerd holds three files per live
 *   object, and the audit's reads wake thousands (at 4096 it failed to open
 *   its SQLite files). Giving ulimits replaces podman's defaults, so nproc is
 *   named too.
 * - events_logger file: journald is not there either.
 */
import { execFile, type ExecFileOptions } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { paths, withLock, MissingPrerequisiteError } from "@sfbench/services";

/** The apt packages podman needs on Debian 12 (crun is not used: see above). */
export const PODMAN_PACKAGES = ["podman", "buildah", "runc", "catatonit", "slirp4netns", "uidmap", "fuse-overlayfs"] as const;

/** Open files when this process's own limit cannot be read. */
const FALLBACK_NOFILE = 4096;
/** Processes per container: what runc is granted here. */
const CONTAINER_NPROC = 4096;

/** The hard open-files limit of this process (/proc/self/limits): what the machine grants sfbench, and so its containers. */
function grantedOpenFiles(): number {
  try {
    const hard = /^Max open files\s+\S+\s+(\d+)/m.exec(readFileSync("/proc/self/limits", "utf8"))?.[1];
    return hard ? Number(hard) : FALLBACK_NOFILE;
  } catch {
    return FALLBACK_NOFILE;
  }
}

/** Open files and processes per container. */
export const CONTAINER_ULIMITS = [`nofile=${grantedOpenFiles()}:${grantedOpenFiles()}`, `nproc=${CONTAINER_NPROC}:${CONTAINER_NPROC}`] as const;

export const podmanHome = () => join(paths.home, "podman");

export class PodmanError extends Error {}

/** Writes containers.conf and storage.conf under .sfbench/podman/ (idempotent) and returns the environment that points podman at them. */
export function podmanEnv(): NodeJS.ProcessEnv {
  const home = podmanHome();
  const containersConf = join(home, "containers.conf");
  const storageConf = join(home, "storage.conf");
  mkdirSync(home, { recursive: true });
  const q = (s: string) => JSON.stringify(s);
  writeIfChanged(
    containersConf,
    [
      "[containers]",
      `default_ulimits = [${CONTAINER_ULIMITS.map(q).join(", ")}]`,
      "[engine]",
      'runtime = "runc"',
      'cgroup_manager = "cgroupfs"',
      'events_logger = "file"',
      `events_logfile_path = ${q(join(home, "events.log"))}`,
      `tmp_dir = ${q(join(home, "tmp"))}`,
      "",
    ].join("\n"),
  );
  writeIfChanged(
    storageConf,
    ["[storage]", 'driver = "overlay"', `graphroot = ${q(join(home, "storage"))}`, `runroot = ${q(join(home, "run"))}`, ""].join("\n"),
  );
  return { ...process.env, CONTAINERS_CONF: containersConf, CONTAINERS_STORAGE_CONF: storageConf, TMPDIR: ensureDir(join(home, "tmp")) };
}

function ensureDir(dir: string): string {
  mkdirSync(dir, { recursive: true });
  return dir;
}

function writeIfChanged(file: string, text: string): void {
  if (existsSync(file) && readFileSync(file, "utf8") === text) return;
  writeFileSync(file, text);
}

export interface PodmanRun {
  stdout: string;
  stderr: string;
}

/**
 * Runs `podman args...` with the project's configuration; rejects with its
 * stderr on a non-zero exit. Past `timeoutMs` podman is killed with SIGKILL:
 * a podman waiting on a lock defers SIGTERM, and only its death frees the
 * locks it holds (podman's are robust mutexes), so the next podman call can
 * go on.
 */
export function podman(args: string[], opts: { timeoutMs?: number; input?: string; cwd?: string } = {}): Promise<PodmanRun> {
  const options: ExecFileOptions = {
    env: podmanEnv(),
    maxBuffer: 64 * 1024 * 1024,
    ...(opts.cwd ? { cwd: opts.cwd } : {}),
    ...(opts.timeoutMs ? { timeout: opts.timeoutMs, killSignal: "SIGKILL" as const } : {}),
  };
  const command = `podman ${args.slice(0, 3).join(" ")}`;
  return new Promise((resolve, reject) => {
    const child = execFile("podman", args, options, (error, stdout, stderr) => {
      if (error && error.killed && opts.timeoutMs) reject(new PodmanError(`${command} did not finish within ${opts.timeoutMs / 1000} s and was killed`));
      else if (error) reject(new PodmanError(`${command} failed: ${String(stderr).trim().split("\n").slice(-8).join("\n") || error.message}`));
      else resolve({ stdout: String(stdout), stderr: String(stderr) });
    });
    if (opts.input !== undefined) child.stdin?.end(opts.input);
  });
}

/**
 * A removal (`rm`, `pod rm`), tried again while podman says a mount of the
 * removed container is busy: a container being created meanwhile holds a
 * copy of the host's mounts (the removed one's /dev/shm among them) for the
 * moment it sets up its own, more often in a user namespace; a few tries
 * later it has let go. Other failures are thrown at once.
 */
export async function podmanRemove(args: string[], opts: { timeoutMs?: number } = {}, run: typeof podman = podman): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await run(args, opts);
      return;
    } catch (e) {
      if (!(e instanceof PodmanError) || !/device or resource busy/.test(e.message) || attempt >= REMOVE_ATTEMPTS) throw e;
      await new Promise((r) => setTimeout(r, 250 * 2 ** attempt));
    }
  }
}
/** 0.5 + 1 + 2 + 4 + 8 s of waiting at most */
const REMOVE_ATTEMPTS = 6;

function onPath(name: string): boolean {
  return (process.env.PATH ?? "").split(":").some((dir) => dir && existsSync(join(dir, name)));
}

/**
 * podman and its parts, installed with apt-get when missing and this runs as
 * root (idempotent, under a lock so two callers do not run apt at once); a
 * MissingPrerequisiteError saying what to install otherwise.
 */
export async function ensurePodman(onProgress?: (message: string) => void): Promise<void> {
  if (onPath("podman") && onPath("runc")) return;
  const install = `apt-get install -y ${PODMAN_PACKAGES.join(" ")}`;
  if (process.getuid?.() !== 0 || !onPath("apt-get")) throw new MissingPrerequisiteError(`podman not found: run \`sudo ${install}\``);
  await withLock("podman-install", 1_800_000, async () => {
    if (onPath("podman") && onPath("runc")) return;
    onProgress?.(`installing ${PODMAN_PACKAGES.join(", ")} with apt-get`);
    const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
    const apt = (args: string[]) =>
      new Promise<void>((resolve, reject) =>
        execFile("apt-get", args, { env, maxBuffer: 64 * 1024 * 1024 }, (e, _o, stderr) =>
          e ? reject(new MissingPrerequisiteError(`${install} failed: ${String(stderr).trim().slice(-500)}`)) : resolve(),
        ),
      );
    await apt(["install", "-y", ...PODMAN_PACKAGES]).catch(async () => {
      await apt(["update"]);
      await apt(["install", "-y", ...PODMAN_PACKAGES]);
    });
  });
}
