/** A valid submission of the form (target.json text and all), with overrides. */
import type { SubmitInput } from "../../src/shared/submit.ts";
import { fixtureManifest } from "../../fixtures/manifest.ts";

export function submission(name: string, overrides: Partial<SubmitInput> = {}): SubmitInput {
  const { manifest } = fixtureManifest(name);
  return {
    name,
    system: manifest.system,
    version: manifest.version,
    image: manifest.image,
    repository: manifest.repository,
    manifest: JSON.stringify(manifest),
    loc: JSON.stringify({ typescript: { app: 812, gateway: 140 } }),
    ...overrides,
  };
}
