/**
 * The build step of a bundled target (target.json `build`): what a system
 * needs compiled before it starts (a Maven package, a `go build`), built once
 * and cached under .sfbench/build/<name>/, like k6 and Kafka.
 *
 * The cache key is a sha256 of the command and of the content of every file
 * the `inputs` globs match: the build runs again only when one of them
 * changed, or when the previous build did not finish. The command runs in the
 * target folder with SFBENCH_BUILD_DIR set; the target's start command gets
 * the same variable, so it finds what was built.
 *
 * A finished build is also kept in the machine's store (paths.cache, see
 * build-store.ts) under the same key: a fresh clone whose inputs give a key
 * the store holds copies that build instead of running the command. Every
 * build's output must therefore be self-contained: pekko and statefun copy
 * their runtime jars into $SFBENCH_BUILD_DIR/lib (nothing read from ~/.m2 at
 * start), dapr and protoactor-go leave Go binaries.
 */
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { paths, withLock } from "@sfbench/services";
import { glob } from "tinyglobby";
import { copyStored, publishBuild, STAMP, storedBuild, type Stamp } from "./build-store.ts";
import { findTarget, TargetError, targetsDir } from "@sfbench/catalogue";
import { tail } from "@sfbench/core";

export const buildDir = (name: string) => join(paths.home, "build", name);
const stampFile = (name: string) => join(buildDir(name), STAMP);
const logFile = (name: string) => join(paths.home, "build", `${name}.log`);

export interface BuildResult {
  name: string;
  dir: string;
  /** false when the cached build was still current, or was copied from the machine's store */
  built: boolean;
  seconds: number;
  key: string;
  /** the store entry the build was copied from, when it was */
  reusedFrom?: string;
}

export interface BuildOptions {
  targetsRoot?: string;
  onProgress?: (message: string) => void;
  /** build even when the cache is current (and do not take the machine's stored build) */
  force?: boolean;
  /**
   * The machine's store of finished builds. Default: paths.cache
   * (SFBENCH_CACHE_DIR) for the bundled targets, none for a target folder
   * elsewhere (a test's copy of a fixture): those build in the clone only.
   */
  cacheDir?: string;
}

/**
 * Replaces $SFBENCH_BUILD_DIR / ${SFBENCH_BUILD_DIR} (and the same for
 * SFBENCH_DATA_DIR) in argv entries: commands are spawned without a shell.
 */
export function expandArgs(argv: readonly string[], vars: Record<string, string>): string[] {
  return argv.map((a) => a.replace(/\$\{?(SFBENCH_BUILD_DIR|SFBENCH_DATA_DIR)\}?/g, (m, k: string) => vars[k] ?? m));
}

/** sha256 over the command and the (path, content) of every input file, in path order. */
export async function buildKey(dir: string, build: { command: string[]; inputs: string[] }): Promise<string> {
  const files = (await glob(build.inputs, { cwd: dir, dot: false, ignore: ["**/node_modules/**", "**/target/**"] })).sort();
  if (files.length === 0) throw new TargetError(`${dir}/target.json: build.inputs: the globs ${build.inputs.join(", ")} match no file`);
  const hash = createHash("sha256").update(JSON.stringify(build.command));
  for (const f of files) hash.update(`\0${f}\0`).update(readFileSync(join(dir, f)));
  return hash.digest("hex");
}

/**
 * Builds a bundled target if it declares a build and its cache is stale.
 * Idempotent and safe to call from several processes (one build at a time per
 * target). Targets without a build answer at once.
 */
export async function ensureBuilt(name: string, opts: BuildOptions = {}): Promise<BuildResult | undefined> {
  const { dir: targetDir, manifest } = findTarget(name, opts.targetsRoot);
  const build = manifest.build;
  if (!build) return undefined;
  const out = buildDir(name);
  const bundled = resolve(opts.targetsRoot ?? targetsDir()) === resolve(targetsDir());
  const store = opts.cacheDir ?? (bundled ? paths.cache : undefined);
  const started = performance.now();
  return withLock(`build-${name}`, (build.timeoutSeconds + 60) * 1000, async () => {
    const key = await buildKey(targetDir, build);
    const stamp = existsSync(stampFile(name)) ? (JSON.parse(readFileSync(stampFile(name), "utf8")) as Partial<Stamp>) : {};
    if (!opts.force && stamp.key === key) return { name, dir: out, built: false, seconds: 0, key };
    const stored = opts.force || !store ? undefined : await storedBuild(store, name, key);
    if (stored) {
      rmSync(out, { recursive: true, force: true });
      mkdirSync(out, { recursive: true });
      try {
        await copyStored(stored.dir, out);
        writeFileSync(stampFile(name), JSON.stringify({ ...stored.stamp, reusedFrom: stored.dir } satisfies Stamp, null, 2));
        const seconds = (performance.now() - started) / 1000;
        opts.onProgress?.(
          `${name}: reused the machine's build ${key.slice(0, 12)} (built ${stored.stamp.builtAt ?? "at an unknown time"}, from ${stored.dir})`,
        );
        return { name, dir: out, built: false, seconds, key, reusedFrom: stored.dir };
      } catch (error) {
        // the entry can vanish mid-copy (another clone pruned it): building is always possible
        opts.onProgress?.(`${name}: could not copy the machine's build from ${stored.dir} (${(error as Error).message}); building instead`);
      }
    }
    rmSync(out, { recursive: true, force: true });
    mkdirSync(out, { recursive: true });
    opts.onProgress?.(`building ${name}: ${build.command.join(" ")} (log: ${logFile(name)})`);
    const fd = openSync(logFile(name), "w");
    const argv = expandArgs(build.command, { SFBENCH_BUILD_DIR: out });
    const exit = await new Promise<string | null>((resolve) => {
      const child = spawn(argv[0]!, argv.slice(1), {
        cwd: targetDir,
        env: { ...process.env, SFBENCH_BUILD_DIR: out },
        stdio: ["ignore", fd, fd],
      });
      const timer = setTimeout(() => child.kill("SIGKILL"), build.timeoutSeconds * 1000);
      const ticker = setInterval(() => opts.onProgress?.(`still building ${name} (${Math.round((performance.now() - started) / 1000)} s)`), 20_000);
      const done = (how: string | null) => {
        clearTimeout(timer);
        clearInterval(ticker);
        resolve(how);
      };
      child.on("error", (e) => done(`could not start ${build.command[0]}: ${e.message}`));
      child.on("exit", (code, signal) =>
        done(
          code === 0 ? null : code !== null ? `exit code ${code}` : `signal ${signal}${signal === "SIGKILL" ? ` (timeout ${build.timeoutSeconds} s?)` : ""}`,
        ),
      );
    });
    closeSync(fd);
    if (exit !== null) throw new TargetError(`building ${name} failed (${exit}): ${build.command.join(" ")}; last log lines:\n${tail(logFile(name), 20)}`);
    writeFileSync(stampFile(name), JSON.stringify({ key, builtAt: new Date().toISOString() } satisfies Stamp, null, 2));
    const seconds = (performance.now() - started) / 1000;
    opts.onProgress?.(`built ${name} in ${seconds.toFixed(0)} s`);
    if (store) await publish(store, name, key, out, opts);
    return { name, dir: out, built: true, seconds, key };
  });
}

async function publish(store: string, name: string, key: string, out: string, opts: BuildOptions): Promise<void> {
  try {
    await publishBuild(store, name, key, out, { replace: opts.force === true });
    opts.onProgress?.(`${name}: kept the build ${key.slice(0, 12)} in the machine's store (${store})`);
  } catch (error) {
    // the store only saves time: a read-only or full one must not fail a build that succeeded
    opts.onProgress?.(`warning: ${name}: could not keep the build in the machine's store ${store}: ${(error as Error).message}`);
  }
}
