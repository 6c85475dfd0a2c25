/**
 * A system whose runs end needs_cluster (its image runs only in cluster mode, e.g. Orleans)
 * has no local numbers: its page says so plainly instead of showing an empty history.
 */

/** The runs the rule looks at (newest first, as the system page has them). */
export interface RunEnd {
  status: string;
  errorMessage?: string | null;
}

/** When no run completed and at least one ended needs_cluster: the newest such run's reason; else null. */
export function clusterOnlyReason(runs: readonly RunEnd[]): string | null {
  if (runs.some((r) => r.status === "completed")) return null;
  const waiting = runs.find((r) => r.status === "needs_cluster");
  return waiting ? (waiting.errorMessage ?? "its image needs the cluster provider") : null;
}

export function ClusterOnly({ reason }: { reason: string }) {
  return (
    <div className="interrupted-box" data-testid="cluster-only">
      <strong>Runs only in cluster mode; no local numbers yet.</strong> {reason}
      <p className="hint">
        The local worker runs only the targets bundled with sfbench; this system&apos;s runs wait for the Kubernetes provider. It stays registered, and its
        numbers appear here and on the leaderboard once a cluster run completes.
      </p>
    </div>
  );
}
