/**
 * A bundled target's folder under another name, for tests that start it
 * beside other developers' and CI jobs' runs of the same target: its own
 * name gives it its own state file, data and PostgreSQL under .sfbench/targets,
 * so two runs never share (or delete) each other's. target.json is the
 * original with the name (and whatever `changes` say) replaced; everything
 * else is linked, so the code is the bundled target's own. The copy lives
 * under .sfbench (inside the checkout) so it resolves tsx and its packages
 * from the workspace's node_modules.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { findTarget } from "@sfbench/catalogue";
import { paths } from "@sfbench/services";

export interface TargetCopy {
  /** pass as startTarget's targetsRoot */
  root: string;
  name: string;
  remove(): void;
}

/** `source` from `sourceRoot` (default: the bundled targets) as `name`, target.json changed by `changes`. */
export function copyTarget(source: string, name: string, changes: Record<string, unknown> = {}, sourceRoot?: string): TargetCopy {
  const from = findTarget(source, sourceRoot).dir;
  mkdirSync(join(paths.home, "tmp"), { recursive: true });
  const root = mkdtempSync(join(paths.home, "tmp", `${name}-`));
  const dir = join(root, name);
  mkdirSync(dir);
  for (const entry of readdirSync(from)) if (entry !== "target.json") symlinkSync(join(from, entry), join(dir, entry));
  const manifest = JSON.parse(readFileSync(join(from, "target.json"), "utf8")) as Record<string, unknown>;
  writeFileSync(join(dir, "target.json"), JSON.stringify({ ...manifest, ...changes, name }));
  return { root, name, remove: () => rmSync(root, { recursive: true, force: true }) };
}
