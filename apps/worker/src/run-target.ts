/**
 * What the pipeline starts and measures, the same way for both providers: a
 * bundled target run as processes (@sfbench/provider-local), or a submitted
 * image run in a podman container (@sfbench/provider-container) after its
 * stored archive is loaded into the project's podman storage. The pipeline
 * asks for the URL, the cost pids, whether it died, the storage settings and
 * the log with span lines, and stops it; it never branches on which it has.
 */
import { join } from "node:path";
import type { TargetControl, TargetManifest } from "@sfbench/core";
import { findImageReference } from "@sfbench/core/image-ref";
import { containerTargetControl, defaultMachineClass, loadImageArchive, startContainerTarget, teardownRun } from "@sfbench/provider-container";
import { costPids, isAlive, startTarget, stopTarget, storageFingerprint, TargetError } from "@sfbench/provider-local";
import { paths } from "@sfbench/services";

export interface RunTarget {
  url: string;
  /** root pids of what the run's cost counts */
  pids(): number[];
  /** how it died, once it has; undefined while it runs */
  exited(): string | undefined;
  storage: ReturnType<typeof storageFingerprint>;
  /** the log span lines go to when tracing */
  log: string;
  /** "PostgreSQL 16.4" and the like, for the result's system version */
  versions: string[];
  /** the provider's hands on the target, when it has its own CPU accounting (a container's cgroups): the run's cost reads it */
  control?: TargetControl;
}

/** How the pipeline runs one target: start it, and stop it (idempotent; also while it is still starting, to abort). */
export interface RunTargetProvider {
  describe: string;
  start(opts: { trace: boolean; onProgress?: (m: string) => void }): Promise<RunTarget>;
  stop(): Promise<void>;
}

export function localProvider(manifest: TargetManifest, targetsRoot: string | undefined): RunTargetProvider {
  return {
    describe: `bundled ${manifest.name}`,
    async start({ trace }) {
      const t = await startTarget(manifest.name, { targetsRoot, trace });
      return {
        url: t.url,
        pids: () => costPids(t),
        exited: () => t.exited() ?? (isAlive(t.pid) ? undefined : "an unknown code"),
        storage: storageFingerprint(t),
        log: t.log,
        versions: t.postgres ? [`PostgreSQL ${t.postgres.settings.version}`] : [],
      };
    },
    stop: async () => void (await stopTarget(manifest.name)),
  };
}

/** A submitted image: its archive `podman load`ed (the project's containers.conf and storage), then one container of the default machine class. */
export function imageProvider(runId: string, manifest: TargetManifest, archive: string): RunTargetProvider {
  return {
    describe: `image ${manifest.image} from its archive`,
    async start({ trace, onProgress }) {
      const loaded = await loadImageArchive(archive, onProgress);
      const image = manifest.image ? findImageReference(loaded, manifest.image) : undefined;
      if (!image) throw new TargetError(`the image archive holds ${loaded.join(", ")}, not target.json's image ${manifest.image ?? "(none)"}`);
      const machine = defaultMachineClass();
      const c = await startContainerTarget({ runId, image, manifest, machine, trace, ...(onProgress ? { onProgress } : {}) });
      const control = await containerTargetControl(c, manifest, { ...(onProgress ? { onProgress } : {}) });
      return {
        url: c.url,
        pids: () => control.pids(),
        exited: () => control.exited(),
        storage: storageFingerprint(c),
        log: c.nodes[0]!.log,
        versions: [`image ${image} (${machine.name})`, ...(c.postgres ? [`PostgreSQL ${c.postgres.settings.version}`] : [])],
        control,
      };
    },
    // the node logs are kept with the run's raw files
    stop: () => teardownRun(runId, { logsTo: join(paths.home, "runs", runId) }),
  };
}
