/**
 * A submitted image from its archive, as the experiment engine takes any
 * target (core's TargetProvider): the archive `podman load`ed into the
 * project's storage, checked to hold the manifest's image, then one container
 * of the default machine class (its cgroups give the cost); stopped with its
 * containers and PostgreSQL, its node logs kept with the run's raw files.
 */
import { join } from "node:path";
import type { TargetManifest, TargetProvider } from "@sfbench/core";
import { findImageReference } from "@sfbench/core/image-ref";
import { freePort, storageFingerprint, TargetError } from "@sfbench/provider-local";
import { paths } from "@sfbench/services";
import { loadImageArchive } from "./archive.ts";
import { startContainerTarget, teardownRun } from "./container.ts";
import { containerTargetControl } from "./control.ts";
import { defaultMachineClass } from "./machine.ts";

export function imageTargetProvider(runId: string, manifest: TargetManifest, archive: string): TargetProvider {
  return {
    describe: `image ${manifest.image} from its archive, in podman`,
    async start({ trace, onProgress }) {
      const loaded = await loadImageArchive(archive, onProgress);
      const image = manifest.image ? findImageReference(loaded, manifest.image) : undefined;
      if (!image) throw new TargetError(`the image archive holds ${loaded.join(", ")}, not target.json's image ${manifest.image ?? "(none)"}`);
      const machine = defaultMachineClass();
      // on the host's network: a free port, so the run never meets whatever holds the manifest's
      const port = await freePort();
      const c = await startContainerTarget({ runId, image, manifest, machine, port, trace, ...(onProgress ? { onProgress } : {}) });
      const control = await containerTargetControl(c, manifest, { ...(onProgress ? { onProgress } : {}) });
      const storage = storageFingerprint(c);
      return {
        url: c.url,
        pids: () => control.pids(),
        exited: () => control.exited(),
        ...(storage ? { storage } : {}),
        log: c.nodes[0]!.log,
        versions: [`image ${image} (${machine.name})`, ...(c.postgres ? [`PostgreSQL ${c.postgres.settings.version}`] : [])],
        control,
      };
    },
    stop: () => teardownRun(runId, { logsTo: join(paths.home, "runs", runId) }),
  };
}
