import { existsSync } from "node:fs";
import { chmod, copyFile, mkdir, rename, rm } from "node:fs/promises";
import path from "node:path";
import { env, paths } from "./env.ts";
import { withLock } from "./lock.ts";
import { findExecutable, run } from "./process.ts";
import { MissingPrerequisiteError, type Progress, type Service, type ServiceStatus } from "./types.ts";

export const K6_VERSION = "v1.8.1";
const K6_MODULE = `go.k6.io/k6@${K6_VERSION}`;
/**
 * `go install` puts k6 here (GOBIN, under .sfbench/), so a different k6 in the
 * user's GOPATH/bin is never overwritten, and never used: sfbench finds its
 * tools on PATH or in its own home, not in a developer's (~/go/bin).
 */
const binDir = path.join(paths.home, "bin");

async function versionOf(file: string): Promise<string | undefined> {
  const output = await run(file, ["version"], { timeoutMs: 30_000 }).catch(() => "");
  return /k6 (v\d+\.\d+\.\d+\S*)/.exec(output)?.[1];
}

/** Where to look for k6 and Go; tests pass their own to reach the "nothing installed" path. */
export interface K6Lookup {
  pathEnv: string;
  /** Where `go install` puts k6. */
  gobin?: string;
  /** The machine's store of finished builds (default paths.cache). */
  cacheDir?: string;
}

const GOARCH: Partial<Record<string, string>> = { x64: "amd64", ia32: "386" };
const GOOS: Partial<Record<string, string>> = { win32: "windows" };

/**
 * The machine's copy of k6 (`<store>/bin/k6-v1.8.1-linux-amd64/k6`), shared by
 * every clone: a fresh clone copies it instead of spending minutes on `go
 * install`. k6 is one static binary, so the module version and the platform
 * (Go's names for it, as `go env GOOS GOARCH` gives them) decide which build
 * it is. The file itself stays named k6: `k6 version` prints the name it was
 * started by, and versionOf reads "k6 v1.8.1".
 */
export function storedK6(cacheDir: string = paths.cache): string {
  const platform = `${GOOS[process.platform] ?? process.platform}-${GOARCH[process.arch] ?? process.arch}`;
  return path.join(cacheDir, "bin", `k6-${K6_VERSION}-${platform}`, "k6");
}

/** Copies an executable into place by rename, so nobody runs a half-written file. */
async function installCopy(from: string, to: string): Promise<void> {
  await mkdir(path.dirname(to), { recursive: true });
  const tmp = `${to}.tmp-${process.pid}-${Date.now()}`;
  try {
    await copyFile(from, tmp);
    await chmod(tmp, 0o755);
    await rename(tmp, to);
  } finally {
    await rm(tmp, { force: true });
  }
}

/** Where a k6 might be: PATH, then our GOBIN. */
function candidates({ pathEnv, gobin = binDir }: K6Lookup): string[] {
  const list = [findExecutable("k6", pathEnv), path.join(gobin, "k6")];
  return [...new Set(list.filter((file): file is string => file !== undefined && existsSync(file)))];
}

export interface K6Found {
  path?: string;
  /** Other k6 binaries seen, with their versions, for a helpful status line. */
  others: string[];
}

export async function findK6(lookup: K6Lookup): Promise<K6Found> {
  const others: string[] = [];
  for (const file of candidates(lookup)) {
    const version = await versionOf(file);
    if (version === K6_VERSION) return { path: file, others };
    others.push(`${file} (${version ?? "unknown version"})`);
  }
  return { others };
}

/**
 * A k6 of the pinned version: found, copied from the machine's store, or
 * built with `go install` (minutes on a fresh machine) and then kept in the store.
 */
export async function ensureK6(lookup: K6Lookup, progress: Progress): Promise<string> {
  const found = await findK6(lookup);
  if (found.path) return found.path;
  const gobin = lookup.gobin ?? binDir;
  const stored = storedK6(lookup.cacheDir);
  if ((await versionOf(stored)) === K6_VERSION) {
    const copy = path.join(gobin, "k6");
    await installCopy(stored, copy);
    if ((await versionOf(copy)) === K6_VERSION) {
      progress(`reused the machine's k6 ${K6_VERSION} (${stored})`);
      return copy;
    }
  }
  const go = findExecutable("go", lookup.pathEnv);
  if (!go) {
    throw new MissingPrerequisiteError(`k6 not found and Go is not installed: install Go 1.22+ or put k6 ${K6_VERSION} on PATH`);
  }
  progress(`building k6 with \`go install ${K6_MODULE}\` into ${gobin} (2-4 minutes the first time)`);
  const started = Date.now();
  let last = "";
  const timer = setInterval(() => {
    const seconds = Math.round((Date.now() - started) / 1000);
    progress(`still building k6 (${seconds} s)${last ? `: ${last}` : ""}`);
  }, 20_000);
  try {
    await run(go, ["install", K6_MODULE], {
      env: { ...process.env, GOBIN: gobin },
      timeoutMs: 30 * 60_000,
      onLine: (line) => (last = line.trim()),
    });
  } finally {
    clearInterval(timer);
  }
  const built = path.join(gobin, "k6");
  const version = await versionOf(built);
  if (version !== K6_VERSION) throw new Error(`go install built ${built}, but it reports ${version ?? "no version"}`);
  progress("built");
  try {
    await installCopy(built, stored);
    progress(`kept k6 in the machine's store (${stored})`);
  } catch (error) {
    // the store only saves the next clone time: a read-only or full one must not fail this one
    progress(`warning: could not keep k6 in the machine's store (${stored}): ${(error as Error).message}`);
  }
  return built;
}

let resolved: string | undefined;

/** The path of k6 v1.8.1, installing it first if this machine has none. */
export async function k6Path(opts: { onProgress?: Progress } = {}): Promise<string> {
  if (resolved && existsSync(resolved)) return resolved;
  const progress = opts.onProgress ?? (() => undefined);
  resolved = await withLock("k6", 40 * 60_000, () => ensureK6({ pathEnv: env.PATH }, progress));
  return resolved;
}

async function status(): Promise<ServiceStatus> {
  const found = await findK6({ pathEnv: env.PATH });
  if (found.path) return { name: "k6", running: true, detail: `k6 ${K6_VERSION} at ${found.path}` };
  const seen = found.others.length > 0 ? `; found only ${found.others.join(", ")}` : "";
  return { name: "k6", running: false, detail: `k6 ${K6_VERSION} is not installed${seen}` };
}

async function up(progress: Progress): Promise<ServiceStatus> {
  const file = await k6Path({ onProgress: progress });
  return { name: "k6", running: true, detail: `k6 ${K6_VERSION} at ${file}` };
}

/** k6 is a command, not a daemon: nothing to stop. */
async function down(): Promise<void> {}

export const k6: Service = { up, down, status };
