/**
 * The suite's environment, read once: SFBENCH_TARGETS narrows the run to
 * some bundled targets (comma-separated names), for a developer working on
 * one folder; absent, every target of the catalogue is checked.
 */
import { z } from "zod";

const Env = z.object({
  SFBENCH_TARGETS: z
    .string()
    .optional()
    .transform((v) =>
      v
        ?.split(",")
        .map((name) => name.trim())
        .filter(Boolean),
    ),
});

export const env = Env.parse(process.env);

/** The targets to check out of the catalogue's `names`; an unknown name in the filter is an error that lists the known ones. */
export function selectTargets(names: readonly string[], filter = env.SFBENCH_TARGETS): string[] {
  if (!filter?.length) return [...names];
  const unknown = filter.filter((n) => !names.includes(n));
  if (unknown.length) throw new Error(`SFBENCH_TARGETS: unknown target ${unknown.join(", ")}; bundled targets: ${names.join(", ")}`);
  return names.filter((n) => filter.includes(n));
}
