/**
 * Where the worker sends the runs that need a cluster (environment
 * `kubernetes`, or an image that cannot run here as a container): a real
 * cluster (./cluster) or the cluster program played on this machine
 * (./kube-play). Either way a run's target comes back as a TargetProvider,
 * and the worker's pipeline measures it like any other.
 */
import type { TargetManifest, TargetProvider } from "@sfbench/core";

export interface ClusterRunRequest {
  runId: string;
  manifest: TargetManifest;
  /** target pods, one per node */
  nodes: number;
  /** the stored `podman save` archive of the manifest's image, when the submitter sent one */
  imageArchive?: string;
  /** the target is one of packages/targets (its image can be built here) */
  bundled: boolean;
}

export interface ClusterPlace {
  /** "GKE project/zone", "podman kube play on this machine", for logs and run pages */
  describe: string;
  provider(run: ClusterRunRequest): TargetProvider;
  /** the start-up sweep: removes what runs of a dead worker left; the run ids it removed */
  sweep(): Promise<string[]>;
}
