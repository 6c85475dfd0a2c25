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
 */
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { paths, withLock } from "@sfbench/services";
import { glob } from "tinyglobby";
import { findTarget, TargetError } from "./catalog.ts";

export const buildDir = (name: string) => join(paths.home, "build", name);
const stampFile = (name: string) => join(buildDir(name), ".sfbench-build.json");
const logFile = (name: string) => join(paths.home, "build", `${name}.log`);

export interface BuildResult {
  name: string;
  dir: string;
  /** false when the cached build was still current */
  built: boolean;
  seconds: number;
  key: string;
}

export interface BuildOptions {
  targetsRoot?: string;
  onProgress?: (message: string) => void;
  /** build even when the cache is current */
  force?: boolean;
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

function tail(file: string, lines = 20): string {
  try {
    return readFileSync(file, "utf8").trimEnd().split("\n").slice(-lines).join("\n");
  } catch {
    return "(no log)";
  }
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
  const started = performance.now();
  return withLock(`build-${name}`, (build.timeoutSeconds + 60) * 1000, async () => {
    const key = await buildKey(targetDir, build);
    const stamp = existsSync(stampFile(name)) ? (JSON.parse(readFileSync(stampFile(name), "utf8")) as { key?: string }) : {};
    if (!opts.force && stamp.key === key) return { name, dir: out, built: false, seconds: 0, key };
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
    if (exit !== null) throw new TargetError(`building ${name} failed (${exit}): ${build.command.join(" ")}; last log lines:\n${tail(logFile(name))}`);
    writeFileSync(stampFile(name), JSON.stringify({ key, builtAt: new Date().toISOString() }, null, 2));
    const seconds = (performance.now() - started) / 1000;
    opts.onProgress?.(`built ${name} in ${seconds.toFixed(0)} s`);
    return { name, dir: out, built: true, seconds, key };
  });
}
