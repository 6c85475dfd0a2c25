/** Fixture result documents imported through @sfbench/db's importResult (the same path as `sfbench results import`). */
import type { TargetManifestInput } from "@sfbench/core";
import { importResult, type Db } from "@sfbench/db";
import { fixtureCampaign, type CampaignOptions } from "../../fixtures/campaign.ts";
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

/** A campaign's trials (fixtures/campaign.ts) imported one by one, each target with its own manifest. */
export async function importCampaignFixture(
  db: Db,
  targets: Array<{ name: string; system?: string; capacities: number[]; busyRounds?: number[] }>,
  opts: Omit<CampaignOptions, "targets"> = {},
) {
  const manifests = new Map(targets.map((t) => [t.name, fixtureManifest(t.name, t.system ? { system: t.system } : {})]));
  const docs = fixtureCampaign({
    ...opts,
    targets: targets.map((t) => {
      const { manifest, digest } = manifests.get(t.name)!;
      return {
        target: { name: t.name, system: manifest.system, version: manifest.version, manifestDigest: digest },
        capacities: t.capacities,
        busyRounds: t.busyRounds,
      };
    }),
  });
  for (const doc of docs) await importResult(db, doc, { manifest: manifests.get(doc.target.name)!.manifest });
  return docs;
}
