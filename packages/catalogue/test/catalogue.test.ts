import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { findTarget, listTargets, loadManifest, TargetError } from "../src/catalogue.ts";

const fixtures = fileURLToPath(new URL("./fixtures", import.meta.url));

describe("the bundled target catalogue", () => {
  it("lists the real bundled targets, each with its folder and valid manifest", () => {
    const targets = listTargets();
    expect(targets.map((t) => t.name)).toContain("node-postgres");
    for (const t of targets) expect(t.manifest.name).toBe(t.name);
  });

  it("finds a target by name in another folder of target folders (tests use their own)", () => {
    const t = findTarget("healthy", fixtures);
    expect(t).toMatchObject({ name: "healthy", dir: `${fixtures}/healthy`, manifest: { system: "Fixture", local: { command: ["node", "server.mjs"] } } });
  });

  it("names the bundled targets when asked for an unknown one", () => {
    expect(() => findTarget("nope", fixtures)).toThrow(/unknown target "nope"; bundled targets: .*healthy/);
  });

  it("reports a bad manifest with its file and field", () => {
    expect(() => findTarget("bad-manifest", fixtures)).toThrow(/bad-manifest\/target\.json: version: must be a semantic version/);
    expect(() => loadManifest(`${fixtures}/nowhere/target.json`)).toThrow(TargetError);
  });

  it("requires the manifest name to equal its folder", () => {
    expect(() => findTarget("misnamed", fixtures)).toThrow(/name: "other-name" must equal its folder name "misnamed"/);
  });
});
