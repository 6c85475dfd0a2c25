/**
 * Lines of code of a target, counted by cloc (the npm package ships the
 * standard tool) over the manifest's globs, split into application code and
 * gateway code (a file matched by both counts as gateway). The one counting:
 * `sfbench loc`, the files `sfbench submit` uploads, and the worker's count
 * of a target version (its folder, or its uploaded source) all use it.
 */
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { promisify } from "node:util";
import { glob } from "tinyglobby";
import { LANGUAGES, type TargetManifest } from "@sfbench/core";

type Language = (typeof LANGUAGES)[number];
export type LocCounts = Partial<Record<Language, { app: number; gateway: number }>>;

const CLOC_NAMES: Record<string, Language> = {
  TypeScript: "typescript",
  JavaScript: "javascript",
  Java: "java",
  Kotlin: "kotlin",
  Scala: "scala",
  "C#": "csharp",
  Go: "go",
  Rust: "rust",
  Python: "python",
  Erlang: "erlang",
  Elixir: "elixir",
};

const CLOC_TIMEOUT_MS = 180_000;
const clocBin = () => join(dirname(createRequire(import.meta.url).resolve("cloc/package.json")), "lib", "cloc");

export class LocError extends Error {}

/** code lines per cloc language name for a list of files */
async function cloc(files: string[]): Promise<Record<string, number>> {
  if (!files.length) return {};
  const dir = mkdtempSync(join(tmpdir(), "sfbench-loc-"));
  try {
    const list = join(dir, "files.txt");
    writeFileSync(list, files.join("\n") + "\n");
    let stdout: string;
    try {
      // a team's files must not hold the worker: cloc gets a few minutes, which a real target's sources need a fraction of
      ({ stdout } = await promisify(execFile)("perl", [clocBin(), "--json", "--quiet", `--list-file=${list}`], {
        maxBuffer: 64 << 20,
        timeout: CLOC_TIMEOUT_MS,
        killSignal: "SIGKILL",
      }));
    } catch (e) {
      const err = e as NodeJS.ErrnoException;
      throw new LocError(err.code === "ENOENT" ? "counting lines needs perl (cloc is a perl program): install perl" : `cloc failed: ${err.message}`);
    }
    const json = JSON.parse(stdout || "{}") as Record<string, { code?: number }>;
    return Object.fromEntries(
      Object.entries(json)
        .filter(([k]) => k !== "header" && k !== "SUM")
        .map(([k, v]) => [k, v.code ?? 0]),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The files the manifest's loc globs select under `dir` (the manifest's folder), absolute; a file in both lists is gateway. */
export async function locFiles(dir: string, manifest: TargetManifest): Promise<{ app: string[]; gateway: string[] }> {
  const opts = { cwd: resolve(dir), absolute: true, onlyFiles: true, ignore: ["**/node_modules/**", "**/.git/**"] };
  const gateway = await glob(manifest.loc.gateway, opts);
  const gatewaySet = new Set(gateway);
  const app = (await glob(manifest.loc.app, opts)).filter((f) => !gatewaySet.has(f));
  return { app, gateway };
}

/** Counts the files the globs select under `dir` (the folder target.json is in); `label` names it in errors. */
export async function countLoc(dir: string, manifest: TargetManifest, label = dir): Promise<{ loc: LocCounts; files: { app: number; gateway: number } }> {
  const { app, gateway } = await locFiles(dir, manifest);
  if (!app.length && !gateway.length) throw new LocError(`loc: the globs of ${label} match no file (app: ${manifest.loc.app.join(", ")})`);
  const [appCounts, gatewayCounts] = await Promise.all([cloc(app), cloc(gateway)]);
  const loc: LocCounts = {};
  const add = (lang: string, part: "app" | "gateway", n: number) => {
    const key = CLOC_NAMES[lang] ?? "other";
    const row = (loc[key] ??= { app: 0, gateway: 0 });
    row[part] += n;
  };
  for (const [lang, n] of Object.entries(appCounts)) add(lang, "app", n);
  for (const [lang, n] of Object.entries(gatewayCounts)) add(lang, "gateway", n);
  return { loc, files: { app: app.length, gateway: gateway.length } };
}

interface PackageJson {
  name?: string;
  workspaces?: string[];
  dependencies?: Record<string, string>;
  sfbench?: { countedWithTargets?: boolean };
}

const readPackage = (dir: string): PackageJson | undefined =>
  existsSync(join(dir, "package.json")) ? (JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as PackageJson) : undefined;

/** The folders of the workspaces list of `root` (a trailing /* is one level of folders, as npm reads it here). */
function workspaceDirs(root: string, workspaces: string[]): string[] {
  return workspaces.flatMap((w) => {
    if (!w.endsWith("/*")) return [join(root, w)];
    const parent = join(root, w.slice(0, -2));
    if (!existsSync(parent)) return [];
    return readdirSync(parent, { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .map((d) => join(parent, d.name));
  });
}

/**
 * The folders of the workspace packages among the runtime dependencies
 * (package.json "dependencies") of the target in `dir` that are counted with
 * the targets using them. The workspaces are those of the nearest package.json
 * above `dir` that lists some (the repository's root).
 */
export function countedWorkspaceDeps(dir: string): string[] {
  const deps = Object.keys(readPackage(dir)?.dependencies ?? {});
  if (deps.length === 0) return [];
  for (let root = dirname(resolve(dir)); ; root = dirname(root)) {
    const workspaces = readPackage(root)?.workspaces;
    if (workspaces) {
      return workspaceDirs(root, workspaces).filter((w) => {
        const pkg = readPackage(w);
        return pkg?.name !== undefined && deps.includes(pkg.name) && pkg.sfbench?.countedWithTargets === true;
      });
    }
    if (dirname(root) === root) return [];
  }
}

/** Adds `more` into `into`, language by language, app and gateway apart. */
function addLoc(into: LocCounts, more: LocCounts): LocCounts {
  for (const [lang, n] of Object.entries(more) as [keyof LocCounts, { app: number; gateway: number }][]) {
    const row = (into[lang] ??= { app: 0, gateway: 0 });
    row.app += n.app;
    row.gateway += n.gateway;
  }
  return into;
}

/**
 * A target folder's count with the workspace packages it shares with other
 * bundled targets and that say so (package.json
 * `"sfbench": {"countedWithTargets": true}`, e.g. @sfbench/shop-pg, the
 * gateway of node-postgres and dbos): each target's LOC is what it takes to
 * build it, as if it carried its own copy, next to targets that do. A shared
 * package has the layout of the targets that use it, so their own loc globs
 * split it into app and gateway.
 */
export async function countTargetLoc(dir: string, manifest: TargetManifest, label = dir): Promise<{ loc: LocCounts; files: { app: number; gateway: number } }> {
  const own = await countLoc(dir, manifest, label);
  for (const shared of countedWorkspaceDeps(dir)) {
    const more = await countLoc(shared, manifest, `${label} (${shared})`);
    addLoc(own.loc, more.loc);
    own.files.app += more.files.app;
    own.files.gateway += more.files.gateway;
  }
  return own;
}
