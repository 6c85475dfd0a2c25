/**
 * The bundled targets: every packages/targets/<name>/target.json, found and
 * validated, for whichever provider runs them and for the CLI and the worker
 * that name them. Only these are ever started from their manifest's command;
 * commands from submissions are never executed. A target's failure to be
 * found, read or started is a TargetError (the target's fault, stored as a
 * failed run); a TargetBusyError is the machine's, tried again later.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parseManifestText, type TargetManifest } from "@sfbench/core";
import { paths } from "@sfbench/services";

export interface BundledTarget {
  name: string;
  dir: string;
  manifest: TargetManifest;
}

/** The target's own failure: no such target, an invalid manifest, a start that failed. */
export class TargetError extends Error {}

/** The machine is not ready for the target (it already runs, its port is taken): not the target's fault; try again later. */
export class TargetBusyError extends TargetError {}

export const targetsDir = () => join(paths.root, "packages", "targets");

/** Reads and validates one manifest file; errors name the file and the field. */
export function loadManifest(file: string): TargetManifest {
  if (!existsSync(file)) throw new TargetError(`${file}: no such file`);
  const result = parseManifestText(readFileSync(file, "utf8"));
  if (!result.ok) throw new TargetError(`${file}: ${result.errors.join("; ")}`);
  return result.manifest;
}

export function listTargets(root = targetsDir()): BundledTarget[] {
  return readdirSync(root, { withFileTypes: true })
    .filter((d) => d.isDirectory() && existsSync(join(root, d.name, "target.json")))
    .map((d) => {
      const dir = join(root, d.name);
      return { name: d.name, dir, manifest: loadManifest(join(dir, "target.json")) };
    });
}

/** A bundled target by name; `root` is the folder of target folders (tests use their own). */
export function findTarget(name: string, root = targetsDir()): BundledTarget {
  const names = readdirSync(root).filter((n) => existsSync(join(root, n, "target.json")));
  if (!names.includes(name)) {
    throw new TargetError(`unknown target "${name}"; bundled targets: ${names.join(", ") || "(none)"}`);
  }
  const dir = join(root, name);
  const manifest = loadManifest(join(dir, "target.json"));
  if (manifest.name !== name) throw new TargetError(`${dir}/target.json: name: "${manifest.name}" must equal its folder name "${name}"`);
  if (!manifest.local) throw new TargetError(`${dir}/target.json: local: missing; a bundled target needs a local start command`);
  return { name, dir, manifest };
}
