/** Submit a target for benchmarking (signed in): the form, or a link to sign in. */
import type { Metadata } from "next";
import Link from "next/link";
import { SubmitForm } from "../../client/submit-form.tsx";
import { getViewer } from "../../server/viewer.ts";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Submit" };

export default async function SubmitPage() {
  const viewer = await getViewer();
  return (
    <>
      <h1>Submit a target</h1>
      <p className="muted">
        Upload the <code>target.json</code> of your implementation of the <Link href="/docs">benchmark application</Link>. The run is queued; a worker verifies
        it with the conformance suite before it measures anything. At most 10 submissions per hour.
      </p>
      {viewer ? (
        <SubmitForm />
      ) : (
        <p>
          <Link href="/signin?next=/submit">Sign in</Link> or <Link href="/signup">create an account</Link> to submit.
        </p>
      )}
    </>
  );
}
