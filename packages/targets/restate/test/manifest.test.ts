import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { parseManifestText } from "@sfbench/core";

const root = new URL("..", import.meta.url).pathname;

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(join(dir, e.name)) : [relative(root, join(dir, e.name))]));
}

/** The glob subset the manifest uses: `**` (any folders) and `*` (within one name). */
function globToRegExp(glob: string): RegExp {
  const escaped = glob.replace(/[.+^${}()|[\]\\]/g, "\\$&");
  return new RegExp(
    `^${escaped
      .replace(/\*\*\//g, "\u0000")
      .replace(/\*/g, "[^/]*")
      .replace(/\u0000/g, "(?:.*/)?")}$`,
  );
}

describe("target.json", () => {
  const result = parseManifestText(readFileSync(join(root, "target.json"), "utf8"));

  it("is a valid manifest", () => {
    expect(result).toMatchObject({ ok: true });
  });

  it("splits every source file into exactly one of app and gateway, the Virtual Objects being the app", () => {
    if (!result.ok) throw new Error(result.errors.join("\n"));
    const matches = (globs: string[], file: string) => globs.some((g) => globToRegExp(g).test(file));
    for (const file of files(join(root, "src"))) {
      const inApp = matches(result.manifest.loc.app, file);
      const inGateway = matches(result.manifest.loc.gateway, file);
      expect(inApp !== inGateway, `${file}: app ${inApp}, gateway ${inGateway}`).toBe(true);
      expect(inApp, file).toBe(file.startsWith("src/app/"));
    }
  });
});
