/**
 * A run that ended needs_cluster: its target is an image, and this server's
 * worker has no Kubernetes cluster to deploy it on. The page says so plainly,
 * names the image that would be deployed, and what the operator sets
 * (docs/cluster.md, served at /docs/cluster).
 */
import Link from "next/link";
import { z } from "zod";

const WithImage = z.object({ image: z.string().min(1) });

/** The manifest's image, when the stored manifest names one. */
export function manifestImage(manifest: unknown): string | null {
  const r = WithImage.safeParse(manifest);
  return r.success ? r.data.image : null;
}

export function RunNeedsCluster({ image, errorMessage }: { image: string | null; errorMessage?: string | null }) {
  return (
    <div className="interrupted-box" data-testid="run-needs-cluster">
      <strong>This server has no Kubernetes cluster configured.</strong>{" "}
      {image ? (
        <>
          The run would deploy the manifest&apos;s image <code>{image}</code> there, one pod per node, load it with k6 runners in the cluster and tear it all
          down afterwards.
        </>
      ) : (
        <>This target runs only on a cluster, and its manifest names no image to deploy there.</>
      )}
      <p className="hint">
        The local worker runs only the targets bundled with sfbench. The operator configures a cluster by setting <code>SFBENCH_KUBECONFIG</code> on the worker
        (for GKE also <code>SFBENCH_GKE_PROJECT</code> and <code>SFBENCH_GKE_ZONE</code>); see <Link href="/docs/cluster">Running on a cluster</Link>. This run
        is not a failure of the target; it has no numbers and is not on the leaderboard.
      </p>
      {errorMessage ? <p className="hint">The worker said: {errorMessage}</p> : null}
    </div>
  );
}
