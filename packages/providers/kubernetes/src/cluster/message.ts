/**
 * Why a run that needs a cluster waits: this server has none. The run page
 * shows it; the operator's fix is in docs/cluster.md.
 */
export function needsClusterMessage(image: string | undefined): string {
  const what = image ? `image ${image}` : "this target";
  return `this server has no cluster configured: ${what} runs only on Kubernetes, and the local worker runs only the targets bundled in packages/targets. The operator sets SFBENCH_KUBECONFIG (and SFBENCH_GKE_PROJECT, SFBENCH_GKE_ZONE for GKE) on the worker; see docs/cluster.md`;
}
