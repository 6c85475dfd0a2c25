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

  it("is a valid manifest that builds with Maven into the build directory, needs its own PostgreSQL and runs as several nodes", () => {
    expect(result).toMatchObject({ ok: true });
    if (!result.ok) return;
    expect(result.manifest.build?.command[0]).toBe("mvn");
    expect(result.manifest.build?.command).toContain("-Dsfbench.out=$SFBENCH_BUILD_DIR");
    expect(result.manifest.build?.inputs).toEqual(expect.arrayContaining(["pom.xml", "src/main/**/*.java", "src/main/resources/**"]));
    expect(result.manifest.local?.command.join(" ")).toContain("$SFBENCH_BUILD_DIR/pekko-app.jar");
    expect(result.manifest.services).toEqual(["postgres"]);
    expect(result.manifest.guarantees.durability).toBe("durable");
    expect(result.manifest.nodes?.max).toBeGreaterThanOrEqual(2);
    expect(result.manifest.micro).toBe(true);
    expect(result.manifest.tracing).toBe(true);
    expect(result.manifest.port).toBeGreaterThanOrEqual(18900);
    expect(result.manifest.port).toBeLessThanOrEqual(18949);
  });

  it("counts the entities as app and the HTTP gateway and start-up as gateway, each file once", () => {
    if (!result.ok) throw new Error(result.errors.join("\n"));
    const matches = (globs: string[], file: string) => globs.some((g) => globToRegExp(g).test(file));
    const sources = files(join(root, "src")).filter((f) => f.endsWith(".java") || f.endsWith(".conf") || f.endsWith(".sql"));
    expect(sources.length).toBeGreaterThan(20);
    for (const file of sources) {
      const inApp = matches(result.manifest.loc.app, file);
      const inGateway = matches(result.manifest.loc.gateway, file);
      expect(inApp !== inGateway, `${file}: app ${inApp}, gateway ${inGateway}`).toBe(true);
      expect(inApp, file).toBe(file.includes("/pekko/app/"));
    }
  });
});
