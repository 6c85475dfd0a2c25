/**
 * A target's image, as the experiment engine takes any target (core's
 * TargetProvider): a submitted archive is `podman load`ed into the project's
 * storage and checked to hold the manifest's image (or the image is one the
 * operator built or loaded: `sfbench run --image`), then its containers of
 * one machine class (their cgroups give the cost); stopped with its
 * containers and PostgreSQL, its node logs kept with the run's raw files.
 */
import { join } from "node:path";
import type { TargetManifest, TargetProvider } from "@sfbench/core";
import { findImageReference } from "@sfbench/core/image-ref";
import { existsSync } from "node:fs";
import { freePort, storageFingerprint, treeBytes } from "@sfbench/provider-local";
import { TargetError } from "@sfbench/catalogue";
import { paths } from "@sfbench/services";
import { imageId, loadImageArchive, requireImage, unloadImageArchive } from "./archive.ts";
import { startContainerTarget, teardownRun } from "./container.ts";
import { containerTargetControl } from "./control.ts";
import { defaultMachineClass, type MachineClass } from "./machine.ts";

/** where the image comes from: a submitted archive, or the project's storage under this name */
export type ImageSource = { archive: string } | { stored: string };

export function imageTargetProvider(
  runId: string,
  manifest: TargetManifest,
  from: ImageSource,
  opts: { machine?: MachineClass; nodes?: number | undefined } = {},
): TargetProvider {
  const machine = opts.machine ?? defaultMachineClass();
  // the names a submitted archive brought, removed again when the run stops
  let loaded: string[] = [];
  // the next start starts on this kept data (a campaign's populated state) instead of empty data, once
  let restoreFrom: string | undefined;
  const stop = async (keepDataIn?: string) => {
    try {
      await teardownRun(runId, { logsTo: join(paths.home, "runs", runId), ...(keepDataIn ? { keepDataIn } : {}) });
    } finally {
      await unloadImageArchive(loaded);
      loaded = [];
    }
  };
  return {
    describe: "archive" in from ? `image ${manifest.image} from its archive, in podman` : `image ${from.stored} in podman (${machine.name})`,
    async start({ trace, onProgress }) {
      let named: string | undefined;
      if ("archive" in from) {
        loaded = await loadImageArchive(from.archive, manifest.name, onProgress);
        named = manifest.image ? findImageReference(loaded, manifest.image) : undefined;
        if (!named) throw new TargetError(`the image archive holds ${loaded.join(", ")}, not target.json's image ${manifest.image ?? "(none)"}`);
      } else {
        await requireImage(from.stored);
        named = from.stored;
      }
      // by ID: another archive loaded meanwhile under the same name does not change what this run starts
      const id = await imageId(named);
      // a free host port to publish on, so the run never meets whatever holds the manifest's
      const port = await freePort();
      const kept = restoreFrom;
      restoreFrom = undefined;
      const c = await startContainerTarget({
        runId,
        image: id,
        manifest,
        machine,
        port,
        trace,
        ...(onProgress ? { onProgress } : {}),
        ...(opts.nodes !== undefined ? { nodes: opts.nodes } : {}),
        ...(kept ? { restoreFrom: kept } : {}),
      });
      const control = await containerTargetControl(c, manifest, { ...(onProgress ? { onProgress } : {}) });
      const storage = storageFingerprint(c);
      return {
        url: c.url,
        pids: () => control.pids(),
        exited: () => control.exited(),
        ...(storage ? { storage } : {}),
        log: c.nodes[0]!.log,
        // each node writes its own span lines (a node added by scale-up too)
        logFiles: () => control.logs(),
        versions: [
          `image ${named} (${id.slice(0, 12)}, ${machine.name})`,
          ...(c.postgres ? [`PostgreSQL ${c.postgres.settings.version}`] : []),
          ...(c.kafka ? [`Kafka ${c.kafka.version} (the run's own broker)`] : []),
          ...(c.redis ? [`Redis ${c.redis.version} (the run's own server)`] : []),
        ],
        // every server it declares is the run's own: none of the shared ones is reported as its
        ownServices: [...manifest.services],
        control,
      };
    },
    stop: () => stop(),
    // the run's containers stopped cleanly, its servers stopped, its data copied, then torn down as by stop
    async snapshot(dir) {
      await stop(dir);
      return treeBytes(dir);
    },
    async restore(dir) {
      if (!existsSync(dir)) throw new TargetError(`${dir} does not exist: there is no kept data to restore`);
      restoreFrom = dir;
    },
  };
}
