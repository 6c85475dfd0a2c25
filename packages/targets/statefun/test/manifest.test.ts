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

  it("is a valid manifest that builds with Maven into the build directory and needs Kafka", () => {
    expect(result).toMatchObject({ ok: true });
    if (!result.ok) return;
    expect(result.manifest.build?.command[0]).toBe("mvn");
    expect(result.manifest.build?.command).toContain("-Dsfbench.out=$SFBENCH_BUILD_DIR");
    expect(result.manifest.build?.inputs).toEqual(expect.arrayContaining(["pom.xml", "src/main/**/*.java"]));
    expect(result.manifest.services).toEqual(["kafka"]);
    expect(result.manifest.micro).toBe(true);
    expect(result.manifest.port).toBeGreaterThanOrEqual(18900);
    expect(result.manifest.port).toBeLessThanOrEqual(18999);
  });

  it("counts the functions as app and the gateway, the launcher and the JVM's start-up as gateway, each file once", () => {
    if (!result.ok) throw new Error(result.errors.join("\n"));
    const matches = (globs: string[], file: string) => globs.some((g) => globToRegExp(g).test(file));
    const sources = files(join(root, "src")).filter((f) => f.endsWith(".java") || f.endsWith(".ts"));
    expect(sources.length).toBeGreaterThan(15);
    for (const file of sources) {
      const inApp = matches(result.manifest.loc.app, file);
      const inGateway = matches(result.manifest.loc.gateway, file);
      expect(inApp !== inGateway, `${file}: app ${inApp}, gateway ${inGateway}`).toBe(true);
      // what starts the JVM and reads its environment is the Java side's launcher, not the application
      const startUp = /\/(Main|Config)\.java$/.test(file);
      expect(inApp, file).toBe(file.endsWith(".java") && !startUp);
    }
  });
});
