/**
 * A target folder's source files and which side of the lines-of-code split
 * (target.json loc: app or gateway) each falls on. Every source file counts
 * once: a file in neither list is code nobody counts, a file in both makes
 * the app's share depend on which list wins.
 */
import { existsSync, readdirSync } from "node:fs";
import { join, relative } from "node:path";
import type { TargetManifest } from "@sfbench/core";

/** Where the bundled targets keep their code: TypeScript and Java under src/, Go under internal/, cmd/ and runtime/. */
const SOURCE_ROOTS = ["src", "internal", "cmd", "runtime"];
/** Code and the files the code reads as code (SQL schemas, HOCON configuration); not data, not build files. */
const CODE = /\.(ts|mts|mjs|js|sh|go|java|sql|conf)$/;

function walk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    if (e.name === "node_modules") return [];
    const path = join(dir, e.name);
    return e.isDirectory() ? walk(path) : [path];
  });
}

/** The folder's source files, relative to it (tests excluded: they are never counted). */
export function sourceFiles(dir: string): string[] {
  return SOURCE_ROOTS.map((root) => join(dir, root))
    .filter(existsSync)
    .flatMap(walk)
    .map((file) => relative(dir, file))
    .filter((file) => CODE.test(file) && !/(^|\/)test\//.test(file))
    .sort();
}

/** The glob subset the manifests use: `**` (any folders) and `*` (within one name). */
export function globToRegExp(glob: string): RegExp {
  const escaped = glob.replace(/[.+^${}()|[\]\\]/g, "\\$&");
  return new RegExp(
    `^${escaped
      .replace(/\*\*\//g, "\u0000")
      .replace(/\*/g, "[^/]*")
      .replace(/\u0000/g, "(?:.*/)?")}$`,
  );
}

/** Whether the manifest's app globs and its gateway globs match `file` (relative to the target's folder). */
export function locSide(manifest: Pick<TargetManifest, "loc">, file: string): { app: boolean; gateway: boolean } {
  const matches = (globs: readonly string[]) => globs.some((g) => globToRegExp(g).test(file));
  return { app: matches(manifest.loc.app), gateway: matches(manifest.loc.gateway) };
}
