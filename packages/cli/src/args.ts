/**
 * Flag parsing on node:util parseArgs, with errors that name the flag and
 * what is allowed (exit code 2), never a stack trace.
 */
import { parseArgs } from "node:util";
import { COMMAND_HELP, isHelpFlag } from "./usage.ts";

export class UsageError extends Error {}

/** `--help` was answered: the command prints nothing more and exits 0. */
export class HelpShown extends Error {}

export interface FlagSpec {
  type: "string" | "boolean";
  /** shown in errors and help, e.g. "URL" */
  value?: string;
  help: string;
  multiple?: boolean;
}

export function parseFlags<const F extends Record<string, FlagSpec>>(
  command: string,
  argv: string[],
  flags: F,
  positionals: { max: number; names?: string[] } = { max: 0 },
) {
  const allowed = Object.keys(flags)
    .map((f) => `--${f}`)
    .join(", ");
  const end = argv.indexOf("--");
  if ((end < 0 ? argv : argv.slice(0, end)).some(isHelpFlag)) {
    process.stdout.write(commandHelp(command, flags, positionals.names ?? []));
    throw new HelpShown(command);
  }
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      options: Object.fromEntries(Object.entries(flags).map(([k, v]) => [k, { type: v.type, multiple: Boolean(v.multiple) }])),
      allowPositionals: true,
      strict: true,
    });
  } catch (e) {
    const err = e as Error & { code?: string };
    const flag = /'(-{1,2}[^' ]+)/.exec(err.message)?.[1];
    if (err.code === "ERR_PARSE_ARGS_UNKNOWN_OPTION") throw new UsageError(`${command}: unknown flag ${flag}; allowed: ${allowed || "(none)"}`);
    if (err.code === "ERR_PARSE_ARGS_INVALID_OPTION_VALUE" && flag) {
      const spec = flags[flag.replace(/^-+/, "")];
      throw new UsageError(spec?.type === "boolean" ? `${command}: ${flag} takes no value` : `${command}: ${flag} needs a value (${spec?.value ?? "value"})`);
    }
    throw new UsageError(`${command}: ${err.message}`);
  }
  if (parsed.positionals.length > positionals.max) {
    const extra = parsed.positionals.slice(positionals.max).join(" ");
    throw new UsageError(`${command}: unexpected argument "${extra}"${positionals.names?.length ? `; expected ${positionals.names.join(" ")}` : ""}`);
  }
  return {
    values: parsed.values as { [K in keyof F]?: F[K]["type"] extends "boolean" ? boolean : F[K]["multiple"] extends true ? string[] : string },
    positionals: parsed.positionals,
  };
}

const flagName = (name: string, spec: FlagSpec) => `--${name}${spec.type === "string" ? ` ${spec.value ?? "VALUE"}` : ""}`;

/** A command's --help, from the same flag table the parser uses. */
export function commandHelp(command: string, flags: Record<string, FlagSpec>, positionals: string[]): string {
  const help = COMMAND_HELP[command];
  const rows = Object.entries(flags).map(([name, spec]) => [flagName(name, spec) + (spec.multiple ? " (repeatable)" : ""), spec.help] as const);
  const width = Math.max(0, ...rows.map(([f]) => f.length));
  return [
    `usage: ${[command, ...positionals, ...(rows.length ? ["[flags]"] : [])].join(" ")}`,
    ...(help ? ["", help.summary] : []),
    "",
    "flags:",
    ...rows.map(([f, h]) => `  ${f.padEnd(width)}  ${h}`),
    `  ${"--help, -h".padEnd(width)}  this text`,
    ...(help ? ["", "example:", `  ${help.example}`] : []),
    "",
  ].join("\n");
}

/** An integer flag within bounds, or a UsageError naming the flag. */
export function intFlag(command: string, flag: string, raw: string | undefined, min: number, max: number): number | undefined {
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!/^\d+$/.test(raw) || n < min || n > max) throw new UsageError(`${command}: --${flag} must be an integer from ${min} to ${max}, got "${raw}"`);
  return n;
}

/** An http(s) URL flag, or a UsageError naming the flag. */
export function urlFlag(command: string, flag: string, raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UsageError(`${command}: --${flag} must be an http(s) URL like http://127.0.0.1:8080, got "${raw}"`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new UsageError(`${command}: --${flag} must be an http(s) URL, got "${raw}"`);
  return raw.replace(/\/+$/, "");
}

export function oneOf<T extends string>(command: string, what: string, raw: string | undefined, allowed: readonly T[]): T | undefined {
  if (raw === undefined) return undefined;
  if (!allowed.includes(raw as T)) throw new UsageError(`${command}: ${what} must be one of ${allowed.join(", ")}, got "${raw}"`);
  return raw as T;
}
