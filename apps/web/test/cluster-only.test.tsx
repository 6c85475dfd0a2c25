/** A system that runs only in cluster mode says so on its page, with the reason, instead of an unexplained lack of numbers. */
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { ClusterOnly, clusterOnlyReason } from "../src/components/cluster-only.tsx";

const reason = "image ghcr.io/sfbench/orleans:0.1.0 needs the cluster provider: the local worker only runs the targets bundled in packages/targets";

describe("cluster-only systems", () => {
  it("are told by their runs: none completed and one ended needs_cluster (the newest reason wins)", () => {
    expect(
      clusterOnlyReason([
        { status: "needs_cluster", errorMessage: reason },
        { status: "needs_cluster", errorMessage: "older" },
      ]),
    ).toBe(reason);
    expect(clusterOnlyReason([{ status: "failed" }, { status: "needs_cluster", errorMessage: reason }])).toBe(reason);
  });

  it("are not what a system with a completed run, or with no cluster-bound run, is", () => {
    expect(clusterOnlyReason([{ status: "needs_cluster", errorMessage: reason }, { status: "completed" }])).toBeNull();
    expect(clusterOnlyReason([{ status: "failed" }, { status: "queued" }])).toBeNull();
    expect(clusterOnlyReason([])).toBeNull();
  });

  it("say plainly that the system runs only in cluster mode, has no local numbers yet, and why", () => {
    const html = renderToStaticMarkup(<ClusterOnly reason={reason} />);
    expect(html).toContain('data-testid="cluster-only"');
    expect(html).toContain("Runs only in cluster mode; no local numbers yet.");
    expect(html).toContain(reason);
    expect(html).toContain("Kubernetes provider");
  });
});
