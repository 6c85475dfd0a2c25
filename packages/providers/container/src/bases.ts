/**
 * Local stand-ins for the public base images the targets' Dockerfiles name
 * (node:20-slim), since no container registry is reachable here.
 *
 * - Debian: a root filesystem from `debootstrap --variant=minbase bookworm`
 *   through the apt mirror this machine already uses, imported as an image.
 *   node:20-slim is itself bookworm-slim, so what the target's Dockerfile runs
 *   (sh, chown, a `node` user) behaves as on the real base.
 * - Node: that Debian plus this machine's own node binary and npm (the same
 *   major version the real tag names, checked), and the `node` user with uid
 *   1000 as in the official image.
 *
 * Each is built once and kept in the project's podman storage; the Node one is
 * rebuilt when the machine's Node version changes (a label records it), the
 * Debian one when the mirror or suite does. Both are also kept in the
 * machine's store (image-store.ts) under that key, so a fresh clone loads them
 * instead of building. The Go ones: go-bases.ts; which ARG gets which:
 * local-bases.ts.
 */
import { execFile } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { MissingPrerequisiteError, withLock } from "@sfbench/services";
import { ensureStoredImage } from "./image-store.ts";
import { ensurePodman, podman, podmanEnv, podmanHome } from "./podman.ts";

export const DEBIAN_BASE = "localhost/sfbench-base/debian:bookworm-slim";
/** The Node major version of the real base (node:20-slim) the stand-in replaces. */
export const NODE_MAJOR = 20;
export const NODE_BASE = `localhost/sfbench-base/node:${NODE_MAJOR}-slim`;
/** uid and gid of the `node` user in the official Node images. */
const NODE_UID = 1000;
const VERSION_LABEL = "org.sfbench.node-version";
/** Debian's suite and the label that records where its root file system came from. */
const SUITE = "bookworm";
const DEBIAN_LABEL = "org.sfbench.debian-source";

export async function imageExists(ref: string): Promise<boolean> {
  try {
    await podman(["image", "exists", ref]);
    return true;
  } catch {
    return false;
  }
}

/** The first deb.debian.org-style mirror in the machine's apt sources (the mirror apt reaches here). */
export function aptMirror(): string {
  const files = ["/etc/apt/sources.list.d/debian.sources", "/etc/apt/sources.list"].filter(existsSync);
  for (const f of files) {
    const text = readFileSync(f, "utf8");
    const uri = /^URIs:\s*(\S+\/debian)\s*$/m.exec(text)?.[1] ?? /^deb\s+(?:\[[^\]]*\]\s+)?(\S+\/debian)\s+bookworm\s/m.exec(text)?.[1];
    if (uri) return uri;
  }
  return "http://deb.debian.org/debian";
}

export function run(cmd: string, args: string[], timeoutMs: number): Promise<void> {
  return new Promise((resolve, reject) =>
    execFile(cmd, args, { env: podmanEnv(), timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024 }, (e, _o, stderr) =>
      e ? reject(new Error(`${cmd} ${args.slice(0, 3).join(" ")} failed: ${String(stderr).trim().split("\n").slice(-8).join("\n") || e.message}`)) : resolve(),
    ),
  );
}

export const DEBOOTSTRAP_TIMEOUT_MS = 1_200_000;
export const BUILD_TIMEOUT_MS = 1_200_000;

/** What decides the Debian stand-in: debootstrap's variant, the suite and the mirror it came from. */
export const debianKey = () => `minbase:${SUITE}:${aptMirror()}`;

export async function ensureDebian(onProgress?: (m: string) => void): Promise<void> {
  const key = debianKey();
  await ensureStoredImage({ ref: DEBIAN_BASE, key, label: DEBIAN_LABEL }, () => debootstrapDebian(key, onProgress), onProgress ? { onProgress } : {});
}

async function debootstrapDebian(key: string, onProgress?: (m: string) => void): Promise<void> {
  if (!existsSync("/usr/sbin/debootstrap")) {
    if (process.getuid?.() !== 0)
      throw new MissingPrerequisiteError("debootstrap not found (it builds the local Debian base image): run `sudo apt-get install -y debootstrap`");
    onProgress?.("installing debootstrap with apt-get");
    await run("apt-get", ["install", "-y", "debootstrap"], BUILD_TIMEOUT_MS);
  }
  const root = join(podmanHome(), "bases", "debian-rootfs");
  rmSync(root, { recursive: true, force: true });
  mkdirSync(dirname(root), { recursive: true });
  const mirror = aptMirror();
  onProgress?.(`building ${DEBIAN_BASE}: debootstrap --variant=minbase ${SUITE} from ${mirror}`);
  try {
    await run("debootstrap", ["--variant=minbase", SUITE, root, mirror], DEBOOTSTRAP_TIMEOUT_MS);
    // apt's lists and caches are not part of a slim image
    for (const d of ["var/cache/apt/archives", "var/lib/apt/lists"]) rmSync(join(root, d), { recursive: true, force: true });
    // the key's label: the machine's store hands this image to a clone only for the same key
    await run(
      "sh",
      ["-c", `tar -C '${root}' -c . | podman import --change 'CMD ["bash"]' --change 'LABEL ${DEBIAN_LABEL}=${key}' - ${DEBIAN_BASE}`],
      BUILD_TIMEOUT_MS,
    );
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

export async function ensureNode(onProgress?: (m: string) => void): Promise<void> {
  const version = process.version;
  await ensureStoredImage({ ref: NODE_BASE, key: version, label: VERSION_LABEL }, () => buildNode(version, onProgress), onProgress ? { onProgress } : {});
}

async function buildNode(version: string, onProgress?: (m: string) => void): Promise<void> {
  const major = Number(version.slice(1).split(".")[0]);
  if (major !== NODE_MAJOR)
    throw new MissingPrerequisiteError(
      `the local ${NODE_BASE} image copies this machine's Node, which is ${version}, not ${NODE_MAJOR}.x: install Node ${NODE_MAJOR}`,
    );
  const npmDir = join(dirname(dirname(process.execPath)), "lib", "node_modules", "npm");
  if (!existsSync(join(npmDir, "bin", "npm-cli.js")))
    throw new MissingPrerequisiteError(`npm not found at ${npmDir} (the local Node base image copies it from beside ${process.execPath})`);
  const ctx = join(podmanHome(), "bases", "node-context");
  rmSync(ctx, { recursive: true, force: true });
  mkdirSync(ctx, { recursive: true });
  cpSync(process.execPath, join(ctx, "node"));
  cpSync(npmDir, join(ctx, "npm"), { recursive: true });
  writeFileSync(
    join(ctx, "Containerfile"),
    [
      `FROM ${DEBIAN_BASE}`,
      "COPY node /usr/local/bin/node",
      "COPY npm /usr/local/lib/node_modules/npm",
      `RUN ln -s ../lib/node_modules/npm/bin/npm-cli.js /usr/local/bin/npm && ln -s ../lib/node_modules/npm/bin/npx-cli.js /usr/local/bin/npx \\`,
      ` && groupadd --gid ${NODE_UID} node && useradd --uid ${NODE_UID} --gid node --shell /bin/bash --create-home node`,
      `LABEL ${VERSION_LABEL}=${version}`,
      `ENV NODE_VERSION=${version.slice(1)}`,
      'CMD ["node"]',
      "",
    ].join("\n"),
  );
  onProgress?.(`building ${NODE_BASE} from ${DEBIAN_BASE} with this machine's Node ${version}`);
  try {
    await podman(["build", "--network=none", "-t", NODE_BASE, "-f", join(ctx, "Containerfile"), ctx], { timeoutMs: BUILD_TIMEOUT_MS });
  } finally {
    rmSync(ctx, { recursive: true, force: true });
  }
}

/** Builds `build` under the bases' lock (podman installed first): one builder of base images at a time. */
export async function withBasesLock(build: () => Promise<void>, onProgress?: (m: string) => void): Promise<void> {
  await ensurePodman(onProgress);
  await withLock("podman-bases", DEBOOTSTRAP_TIMEOUT_MS + BUILD_TIMEOUT_MS, build);
}

/** The Debian and Node stand-ins, built when missing or stale; idempotent. */
export async function ensureBaseImages(onProgress?: (m: string) => void): Promise<void> {
  await withBasesLock(async () => {
    await ensureDebian(onProgress);
    await ensureNode(onProgress);
  }, onProgress);
}
