/** Which bundled targets bench:overhead measures (a module of its own: overhead.ts runs when imported). */
import { listTargets } from "@sfbench/catalogue";

export const DEFAULT_TARGET = "node-postgres";

/** The targets asked for: bundled ones that write spans; a name that is not one is refused by name. */
export function overheadTargets(flag: string | undefined, catalogue = listTargets()): string[] {
  const tracing = catalogue.filter((t) => t.manifest.tracing).map((t) => t.name);
  if (flag === undefined) return [DEFAULT_TARGET];
  if (flag === "all") return tracing;
  const names = flag
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  for (const name of names) {
    if (!catalogue.some((t) => t.name === name))
      throw new Error(`--targets: "${name}" is not a bundled target (bundled: ${catalogue.map((t) => t.name).join(", ")})`);
    if (!tracing.includes(name))
      throw new Error(`--targets: ${name} writes no spans (its target.json says tracing: false), so tracing costs it nothing to measure`);
  }
  if (!names.length) throw new Error("--targets: name at least one bundled target, or all");
  return [...new Set(names)];
}
