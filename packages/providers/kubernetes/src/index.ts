/**
 * @sfbench/provider-kubernetes: a run's cluster program (infra/pulumi) as the
 * place a target runs, on a real cluster (./cluster: the Pulumi Automation
 * API, kubectl, k6-operator TestRuns) or played on this machine (./kube-play:
 * podman kube play of the rendered objects, k6 included). Both hand the
 * experiment engine a RunningTarget, so its phases run unchanged.
 */
export * from "./cluster/index.ts";
export * from "./kube-play/index.ts";
export type { ClusterPlace, ClusterRunRequest } from "./place.ts";
export { createKubePlayPlace } from "./kube-play-place.ts";
