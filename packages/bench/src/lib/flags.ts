/**
 * Command lines of the bench scripts: a bad flag is a UsageError whose
 * message names the flag and what is allowed (the scripts print it with their
 * usage and exit 2); -h/--help prints the usage and exits 0.
 */
import { parseArgs, type ParseArgsConfig } from "node:util";

export class UsageError extends Error {}

type Options = NonNullable<ParseArgsConfig["options"]>;

/** parseArgs (strict), after -h/--help (which print the usage and exit 0). */
export function parseFlags<const O extends Options>(argv: string[], options: O, usage: string) {
  if (argv.includes("-h") || argv.includes("--help")) {
    process.stdout.write(usage + "\n");
    process.exit(0);
  }
  return parseArgs({ args: argv, options, strict: true }).values;
}

/** An integer flag in min..max, or `def` when absent. */
export function intFlag(name: string, raw: string | undefined, def: number, min: number, max: number): number {
  if (raw === undefined) return def;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) throw new UsageError(`--${name}: expected an integer in ${min}..${max}, got ${JSON.stringify(raw)}`);
  return n;
}

/** A comma-separated subset of `allowed` (in the order given), or all of them when absent. */
export function listFlag<T extends string>(name: string, raw: string | undefined, allowed: readonly T[]): T[] {
  if (raw === undefined) return [...allowed];
  const names = raw
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  const bad = names.filter((n) => !(allowed as readonly string[]).includes(n));
  if (bad.length || names.length === 0)
    throw new UsageError(`--${name}: ${bad.length ? `unknown ${bad.map((b) => JSON.stringify(b)).join(", ")}` : "empty"}; allowed: ${allowed.join(", ")}`);
  return names as T[];
}
