/** sfbench manifest check <target.json>: validate a manifest with the same schema the portal uses. */
import { readFileSync } from "node:fs";
import { manifestDigest, parseManifestText } from "@sfbench/core";
import { parseFlags, UsageError } from "../args.ts";
import { isHelpFlag } from "../usage.ts";
import { showGroupHelp } from "../group-help.ts";

export async function manifest(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  if (isHelpFlag(sub)) return showGroupHelp("manifest");
  if (sub !== "check") throw new UsageError(`sfbench manifest: unknown subcommand "${sub ?? ""}"; allowed: check`);
  const { positionals } = parseFlags("sfbench manifest check", rest, {}, { max: 1, names: ["<target.json>"] });
  const file = positionals[0];
  if (!file) throw new UsageError("sfbench manifest check: missing <target.json>");
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (e) {
    throw new UsageError(`sfbench manifest check: cannot read ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  const result = parseManifestText(text);
  if (!result.ok) {
    for (const line of result.errors) process.stderr.write(`${file}: ${line}\n`);
    return 1;
  }
  process.stdout.write(`${file}: valid (${result.manifest.name} ${result.manifest.version}, ${manifestDigest(result.manifest)})\n`);
  return 0;
}
