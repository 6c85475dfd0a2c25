/** Reads and validates a target.json for a command, or fails with the file and the field. */
import { readFileSync } from "node:fs";
import { parseManifestText, type TargetManifest } from "@sfbench/core";
import { UsageError } from "./args.ts";

export class ManifestInvalid extends Error {
  constructor(readonly lines: string[]) {
    super(lines.join("\n"));
  }
}

export function readManifest(command: string, file: string): { text: string; manifest: TargetManifest } {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (e) {
    throw new UsageError(`${command}: cannot read ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  const result = parseManifestText(text);
  if (!result.ok) throw new ManifestInvalid(result.errors.map((l) => `${file}: ${l}`));
  return { text, manifest: result.manifest };
}
