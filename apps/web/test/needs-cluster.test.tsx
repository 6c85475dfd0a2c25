/** A run waiting for a cluster says that this server has none, which image would be deployed, and what the operator sets. */
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { manifestImage, RunNeedsCluster } from "../src/components/needs-cluster.tsx";
import { DOCS, docHtml } from "../src/server/docs.ts";

const text = (html: string) =>
  html
    .replace(/<[^>]+>/g, "")
    .replace(/&#x27;|&#39;/g, "'")
    .replace(/\s+/g, " ");

describe("a run that needs a cluster", () => {
  it("says that this server has no Kubernetes cluster configured and names the image that would be deployed there", () => {
    const html = renderToStaticMarkup(
      <RunNeedsCluster
        image="ghcr.io/example/orleans:0.1.0"
        errorMessage="this server has no cluster configured: image ghcr.io/example/orleans:0.1.0 runs only on Kubernetes"
      />,
    );
    expect(html).toContain('data-testid="run-needs-cluster"');
    const t = text(html);
    expect(t).toContain("This server has no Kubernetes cluster configured.");
    expect(t).toContain("The run would deploy the manifest's image ghcr.io/example/orleans:0.1.0 there");
    expect(t).toContain("The worker said: this server has no cluster configured");
    expect(t).toContain("not a failure of the target");
  });

  it("tells the operator what to set, linking the cluster docs the portal serves", () => {
    const html = renderToStaticMarkup(<RunNeedsCluster image={null} />);
    expect(html).toContain("<code>SFBENCH_KUBECONFIG</code>");
    expect(html).toContain("<code>SFBENCH_GKE_PROJECT</code>");
    expect(html).toContain('href="/docs/cluster"');
    expect(text(html)).toContain("its manifest names no image");
    expect(DOCS.cluster.file).toBe("cluster.md");
    expect(text(docHtml("cluster"))).toContain("SFBENCH_KUBECONFIG");
  });

  it("reads the image from a stored manifest, and nothing from one without", () => {
    expect(manifestImage({ name: "x", image: "ghcr.io/a/b:1" })).toBe("ghcr.io/a/b:1");
    expect(manifestImage({ name: "x" })).toBeNull();
    expect(manifestImage(null)).toBeNull();
  });
});
