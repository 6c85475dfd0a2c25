/** API tokens for the CLI (signed in). */
import type { Metadata } from "next";
import Link from "next/link";
import { TokensPanel } from "../../client/tokens-panel.tsx";
import { getViewer } from "../../server/viewer.ts";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "API tokens" };

export default async function TokensPage() {
  const viewer = await getViewer();
  return (
    <>
      <h1>API tokens</h1>
      <p className="muted">
        Tokens let the CLI act as you (<code>Authorization: Bearer &lt;token&gt;</code>). A token is shown once; only its digest is stored. Revoke one you no
        longer use.
      </p>
      {viewer ? (
        <TokensPanel />
      ) : (
        <p>
          <Link href="/signin?next=/tokens">Sign in</Link> to manage your tokens.
        </p>
      )}
    </>
  );
}
