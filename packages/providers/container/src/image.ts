/**
 * `sfbench image build`: a bundled target's OCI image from its folder's
 * Dockerfile, built offline (`podman build --network=none`) on the local base
 * stand-ins (bases.ts), tagged localhost/sfbench/<name>:<version>.
 *
 * The context is the working tree as git sees it (tracked files and new
 * ones, without what .gitignore excludes: node_modules, .sfbench): a
 * Dockerfile with a Dockerfile.dockerignore beside it builds from the
 * repository root (the convention of the bundled ones), any other from the
 * target's folder. Nothing ignored (data, build output) leaks in, and the
 * context's digest is the cache key: the image is rebuilt only when a
 * file of its context, its Dockerfile or a base image changed.
 *
 * npm inside the build has no network either: the packages the Dockerfile's
 * `npm ci` needs are fetched beforehand on the host (which reaches the npm
 * registry) into .sfbench/podman/npm-cache, mounted into the build with npm
 * set to offline. A target built on the host (Maven, Dapr's sidecar) gets its
 * host build's files instead of compiling inside the image build
 * (host-build.ts).
 *
 * A built image is also kept in the machine's store (image-store.ts) under its
 * context digest, so another clone on the machine (a CI run) whose context
 * gives the same digest loads it instead of building.
 */
import { createHash } from "node:crypto";
import { execFileSync, execFile } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { findTarget, TargetError, type BundledTarget } from "@sfbench/catalogue";
import { paths, withLock } from "@sfbench/services";
import { imageExists } from "./bases.ts";
import { hostBuild } from "./host-build.ts";
import { loadStoredImage, saveStoredImage } from "./image-store.ts";
import { ensureLocalBases } from "./local-bases.ts";
import { podman, podmanHome } from "./podman.ts";

const DIGEST_LABEL = "org.sfbench.context-digest";
const BUILD_TIMEOUT_MS = 1_800_000;

/** The local tag of a bundled target's image. */
export function localImageRef(target: BundledTarget): string {
  return `localhost/sfbench/${target.name}:${target.manifest.version}`;
}

export interface BuiltImage {
  name: string;
  ref: string;
  /** false: the image was already there for this context, or loaded from the machine's store (nothing rebuilt) */
  built: boolean;
  digest: string;
}

interface Context {
  dir: string;
  dockerfile: string;
  ignorefile?: string;
  /** repository-relative paths of the files staged */
  files: string[];
}

/** Stages the files of the build context into .sfbench/podman/context/<name>/. */
function stageContext(target: BundledTarget): Context {
  const dockerfile = join(target.dir, "Dockerfile");
  if (!existsSync(dockerfile)) throw new TargetError(`${target.name} has no Dockerfile in ${target.dir}`);
  const ignore = `${dockerfile}.dockerignore`;
  const root = existsSync(ignore) ? paths.root : target.dir;
  const tracked = execFileSync("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard", "--", relative(paths.root, root) || "."], {
    cwd: paths.root,
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  })
    .split("\0")
    .filter((f) => f && existsSync(join(paths.root, f)));
  const dir = join(podmanHome(), "context", target.name);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const rootRel = relative(paths.root, root);
  const files = tracked.map((f) => (rootRel ? relative(rootRel, f) : f));
  for (const [i, f] of files.entries()) {
    mkdirSync(dirname(join(dir, f)), { recursive: true });
    cpSync(join(paths.root, tracked[i]!), join(dir, f));
  }
  return { dir, dockerfile, ...(existsSync(ignore) ? { ignorefile: ignore } : {}), files: files.sort() };
}

async function contextDigest(ctx: Context, bases: string[], hostBuildKey?: string): Promise<string> {
  const h = createHash("sha256");
  if (hostBuildKey) h.update(`host-build\0${hostBuildKey}\0`);
  for (const f of ctx.files)
    h.update(f)
      .update("\0")
      .update(readFileSync(join(ctx.dir, f)))
      .update("\0");
  h.update(readFileSync(ctx.dockerfile));
  if (ctx.ignorefile) h.update(readFileSync(ctx.ignorefile));
  for (const b of bases) h.update((await podman(["image", "inspect", "--format", "{{.Id}}", b])).stdout.trim());
  return h.digest("hex");
}

async function labelOf(ref: string): Promise<string | undefined> {
  if (!(await imageExists(ref))) return undefined;
  return (await podman(["image", "inspect", "--format", `{{ index .Labels "${DIGEST_LABEL}" }}`, ref])).stdout.trim();
}

const npmCache = () => join(podmanHome(), "npm-cache");

/**
 * Fetches what `npm ci` of the target's workspace needs into the project's npm
 * cache, on the host: a copy of the context's package.json files and lock,
 * installed there once and thrown away (the cache is what is kept).
 */
async function prefetchNpm(target: BundledTarget, ctx: Context, onProgress?: (m: string) => void): Promise<void> {
  if (!ctx.files.includes("package-lock.json")) return;
  const workspace = (JSON.parse(readFileSync(join(target.dir, "package.json"), "utf8")) as { name: string }).name;
  const dir = join(podmanHome(), "npm-prefetch", target.name);
  rmSync(dir, { recursive: true, force: true });
  for (const f of ctx.files.filter((f) => f === "package-lock.json" || f.endsWith("package.json"))) {
    mkdirSync(dirname(join(dir, f)), { recursive: true });
    cpSync(join(ctx.dir, f), join(dir, f));
  }
  onProgress?.(`fetching the npm packages of ${workspace} into ${npmCache()}`);
  try {
    await new Promise<void>((resolve, reject) =>
      execFile(
        "npm",
        [
          "ci",
          "--workspace",
          workspace,
          "--include-workspace-root",
          "--ignore-scripts",
          "--no-audit",
          "--no-fund",
          "--prefer-offline",
          "--cache",
          npmCache(),
          "--loglevel=error",
        ],
        { cwd: dir, maxBuffer: 64 * 1024 * 1024, timeout: BUILD_TIMEOUT_MS },
        (e, _o, stderr) =>
          e ? reject(new TargetError(`npm ci (fetching ${workspace}'s packages for its image) failed: ${String(stderr).trim().slice(-800)}`)) : resolve(),
      ),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const goModCache = () => join(podmanHome(), "gomodcache");

/**
 * Fetches the Go modules of a context with a go.mod into the project's module
 * cache, on the host (which reaches the Go module proxy); the build mounts it
 * at /go/pkg/mod with the proxy off.
 */
async function prefetchGo(target: BundledTarget, ctx: Context, onProgress?: (m: string) => void): Promise<void> {
  if (!ctx.files.includes("go.mod")) return;
  onProgress?.(`fetching the Go modules of ${target.name} into ${goModCache()}`);
  await new Promise<void>((resolve, reject) =>
    execFile(
      "go",
      ["mod", "download"],
      { cwd: ctx.dir, env: { ...process.env, GOMODCACHE: goModCache(), GOFLAGS: "-mod=mod" }, maxBuffer: 64 * 1024 * 1024, timeout: BUILD_TIMEOUT_MS },
      (e, _o, stderr) =>
        e
          ? reject(new TargetError(`go mod download (fetching ${target.name}'s modules for its image) failed: ${String(stderr).trim().slice(-800)}`))
          : resolve(),
    ),
  );
}

/** The ARG names a Dockerfile declares. */
function declaredArgs(dockerfile: string): string[] {
  return [...readFileSync(dockerfile, "utf8").matchAll(/^ARG\s+([A-Za-z_][A-Za-z0-9_]*)/gm)].map((m) => m[1]!);
}

/**
 * Builds a bundled target's image unless one built from the same context is
 * there (force: rebuild anyway). Resolves with its local tag.
 */
export async function buildTargetImage(
  name: string,
  opts: { force?: boolean; targetsRoot?: string; onProgress?: (m: string) => void } = {},
): Promise<BuiltImage> {
  const target = findTarget(name, opts.targetsRoot);
  if (!existsSync(join(target.dir, "Dockerfile"))) throw new TargetError(`${name} has no Dockerfile in ${target.dir}`);
  // one build of a target at a time: its staged context and npm prefetch directory are shared
  return withLock(`image-${target.name}`, BUILD_TIMEOUT_MS, () => buildLocked(target, opts));
}

async function buildLocked(target: BundledTarget, opts: { force?: boolean; targetsRoot?: string; onProgress?: (m: string) => void }): Promise<BuiltImage> {
  const { name } = target;
  const ref = localImageRef(target);
  const declared = declaredArgs(join(target.dir, "Dockerfile"));
  const host = await hostBuild(target, declared, opts);
  const args = await ensureLocalBases(declared, opts.onProgress);
  const ctx = stageContext(target);
  try {
    const digest = await contextDigest(ctx, Object.values(args), host?.key);
    const stored = { ref, key: digest, label: DIGEST_LABEL };
    const progress = opts.onProgress ? { onProgress: opts.onProgress } : {};
    if (!opts.force && (await labelOf(ref)) === digest) {
      await saveStoredImage(stored, progress); // a clone that built it before the store existed fills it
      opts.onProgress?.(`${ref} is up to date`);
      return { name, ref, built: false, digest };
    }
    const previous = (await imageExists(ref)) ? (await podman(["image", "inspect", "--format", "{{.Id}}", ref])).stdout.trim() : undefined;
    // the image this build or load replaced (untagged now) and its own layers go, unless a container still uses them
    const dropPrevious = async () => {
      const now = (await podman(["image", "inspect", "--format", "{{.Id}}", ref])).stdout.trim();
      if (previous && previous !== now) await podman(["rmi", previous]).catch(() => undefined);
    };
    if (!opts.force && (await loadStoredImage(stored, progress))) {
      await dropPrevious();
      return { name, ref, built: false, digest };
    }
    await prefetchNpm(target, ctx, opts.onProgress);
    // with the host build, the Dockerfile's Go build stage is the one skipped: no module is read
    if (!host) await prefetchGo(target, ctx, opts.onProgress);
    const npmrc = join(podmanHome(), "npmrc-offline");
    // npm and go in the build: the prefetched caches only, never the network (there is none)
    writeFileSync(npmrc, "offline=true\naudit=false\nfund=false\nupdate-notifier=false\n");
    const goenv = join(podmanHome(), "goenv-offline");
    writeFileSync(goenv, "GOPROXY=off\nGOTOOLCHAIN=local\n");
    mkdirSync(npmCache(), { recursive: true });
    mkdirSync(goModCache(), { recursive: true });
    opts.onProgress?.(`building ${ref} (podman build --network=none)`);
    await podman(
      [
        "build",
        "--network=none",
        "--layers",
        ...Object.entries(args).flatMap(([k, v]) => ["--build-arg", `${k}=${v}`]),
        ...(host?.flags ?? []),
        // :O, an overlay: what the build writes there (the Dockerfiles end with `npm cache clean`) is thrown away, the cache stays
        "--volume",
        `${npmCache()}:/root/.npm:O`,
        "--volume",
        `${npmrc}:/root/.npmrc:ro`,
        "--volume",
        `${goModCache()}:/go/pkg/mod:O`,
        "--volume",
        `${goenv}:/root/.config/go/env:ro`,
        "--label",
        `${DIGEST_LABEL}=${digest}`,
        "--tag",
        ref,
        "--file",
        ctx.dockerfile,
        ...(ctx.ignorefile ? ["--ignorefile", ctx.ignorefile] : []),
        ctx.dir,
      ],
      { timeoutMs: BUILD_TIMEOUT_MS },
    );
    await dropPrevious();
    await saveStoredImage(stored, progress);
    return { name, ref, built: true, digest };
  } finally {
    rmSync(ctx.dir, { recursive: true, force: true });
  }
}
