/**
 * Where a verification link lands (`/verify-email?token=...`): signed in, the
 * button verifies; signed out, a sign-in that comes back here (a link verifies
 * only its own account, for its signed-in owner); a bad, used or expired link
 * says so when the button is pressed.
 */
import type { Metadata } from "next";
import Link from "next/link";
import { VerifyEmailForm } from "../../client/verify-email-form.tsx";
import { getViewer } from "../../server/viewer.ts";

export const metadata: Metadata = { title: "Verify your email address" };

export default async function VerifyEmailPage({ searchParams }: { searchParams: Promise<{ token?: string | string[] }> }) {
  const { token } = await searchParams;
  const viewer = await getViewer();
  return (
    <>
      <h1>Verify your email address</h1>
      {typeof token !== "string" || !token ? (
        <p className="form-error" role="alert">
          This page needs the link from the verification mail, whole (it ends in ?token=...).
        </p>
      ) : viewer ? (
        <VerifyEmailForm token={token} />
      ) : (
        <p data-testid="verify-sign-in">
          A link verifies the account that asked for it, for its owner:{" "}
          <Link href={`/signin?next=${encodeURIComponent(`/verify-email?token=${encodeURIComponent(token)}`)}`}>sign in</Link> with that account, and this page
          comes back.
        </p>
      )}
    </>
  );
}
