/**
 * The cluster program played on this machine as the place the worker sends
 * runs that need a cluster (SFBENCH_KUBE_PLAY=1): each run's target comes
 * from kubePlayProvider, its image a bundled target's image built here, or
 * the submitted archive loaded into the project's podman storage, or an image
 * already there (no registry can be pulled from). A play runs on this
 * machine under the worker's run lock, so what a dead worker left is the lost
 * run's, and the worker's sweep of that run removes it (downRun); this place
 * has no stacks of its own to sweep.
 */
import { findImageReference } from "@sfbench/core/image-ref";
import { loadImageArchive, unloadImageArchive } from "@sfbench/provider-container";
import type { TargetProvider } from "@sfbench/core";
import { ClusterProvisionError } from "./cluster/provider.ts";
import { downRun, kubePlayProvider } from "./kube-play/index.ts";
import type { ClusterPlace, ClusterRunRequest } from "./place.ts";

export function createKubePlayPlace(opts: { maxNodes: number }): ClusterPlace {
  return {
    describe: "the cluster program played by podman kube play on this machine",
    provider(run: ClusterRunRequest): TargetProvider {
      if (run.nodes > opts.maxNodes)
        throw new ClusterProvisionError(
          `the run asks for ${run.nodes} nodes; this server's cluster allows at most ${opts.maxNodes} (SFBENCH_CLUSTER_MAX_NODES)`,
        );
      let played: TargetProvider | undefined;
      // the names a submitted archive brought, removed again when the run stops
      let loaded: string[] = [];
      return {
        describe: `${run.manifest.name} under podman kube play`,
        async start(o) {
          let image: string | undefined;
          if (run.imageArchive) {
            loaded = await loadImageArchive(run.imageArchive, run.manifest.name, o.onProgress);
            image = run.manifest.image ? findImageReference(loaded, run.manifest.image) : undefined;
            if (!image)
              throw new ClusterProvisionError(`the image archive holds ${loaded.join(", ")}, not target.json's image ${run.manifest.image ?? "(none)"}`);
          } else if (!run.bundled) {
            if (!run.manifest.image) throw new ClusterProvisionError("the manifest has no image: a played cluster runs the manifest's `image`");
            image = run.manifest.image;
          }
          played = kubePlayProvider({
            runId: run.runId,
            manifest: run.manifest,
            nodes: run.nodes,
            ...(image ? { image } : {}),
            ...(o.onProgress ? { onProgress: o.onProgress } : {}),
          });
          return played.start(o);
        },
        async stop() {
          await (played ? played.stop() : downRun(run.runId));
          await unloadImageArchive(loaded);
        },
      };
    },
    sweep: async () => [],
  };
}
