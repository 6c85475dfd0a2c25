/**
 * The bundled targets' names: the folders of packages/targets/ that hold a
 * target.json (the same rule as @sfbench/provider-local's catalog). Read on
 * every call, so a target folder added to the checkout is reserved without a
 * restart; a directory listing costs less than the submission it guards.
 */
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { paths } from "@sfbench/services";

export const bundledTargetsDir = () => join(paths.root, "packages", "targets");

export function bundledTargetNames(root = bundledTargetsDir()): Set<string> {
  if (!existsSync(root)) return new Set();
  return new Set(
    readdirSync(root, { withFileTypes: true })
      .filter((d) => d.isDirectory() && existsSync(join(root, d.name, "target.json")))
      .map((d) => d.name),
  );
}
