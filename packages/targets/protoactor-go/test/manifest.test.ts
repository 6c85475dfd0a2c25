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

  it("is a valid manifest that builds with go build and starts the built binary", () => {
    expect(result).toMatchObject({ ok: true });
    if (!result.ok) return;
    expect(result.manifest.build?.command.slice(0, 2)).toEqual(["go", "build"]);
    expect(result.manifest.local?.command[0]).toBe("$SFBENCH_BUILD_DIR/protoactor-target");
    expect(result.manifest.services).toEqual(["postgres"]);
    expect(result.manifest.micro).toBe(true);
  });

  it("splits every Go source file into exactly one of app and gateway", () => {
    if (!result.ok) throw new Error(result.errors.join("\n"));
    const matches = (globs: string[], file: string) => globs.some((g) => globToRegExp(g).test(file));
    const sources = [...files(join(root, "internal")), ...files(join(root, "cmd"))].filter((f) => f.endsWith(".go"));
    expect(sources.length).toBeGreaterThan(10);
    // Go unit tests live in gotest/, so that the loc globs count no test code
    expect(sources.filter((f) => f.endsWith("_test.go"))).toEqual([]);
    for (const file of sources) {
      const inApp = matches(result.manifest.loc.app, file);
      const inGateway = matches(result.manifest.loc.gateway, file);
      expect(inApp !== inGateway, `${file}: app ${inApp}, gateway ${inGateway}`).toBe(true);
    }
  });
});
