/** Fixture result documents imported through @sfbench/db's importResult (the same path as `sfbench results import`). */
import type { TargetManifestInput } from "@sfbench/core";
import { importResult, type Db } from "@sfbench/db";
import { fixtureManifest } from "../../fixtures/manifest.ts";
import { fixtureFailedResult, fixtureResult, type FixtureOptions } from "../../fixtures/result-doc.ts";

type Options = Omit<FixtureOptions, "target"> & { system?: string; failed?: boolean; manifest?: Partial<TargetManifestInput> };

export async function importFixture(db: Db, name: string, opts: Options = {}) {
  const { manifest, digest } = fixtureManifest(name, { ...(opts.system ? { system: opts.system } : {}), ...opts.manifest });
  const target = { name, system: manifest.system, version: manifest.version, manifestDigest: digest };
  const doc = opts.failed ? fixtureFailedResult({ size: "small", ...opts, target }) : fixtureResult({ size: "small", ...opts, target });
  await importResult(db, doc, { manifest });
  return doc;
}
