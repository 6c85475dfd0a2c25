/** Where a verification link lands (`/verify-email?token=...`): the button verifies; a bad, used or expired link says so then. */
import type { Metadata } from "next";
import { VerifyEmailForm } from "../../client/verify-email-form.tsx";

export const metadata: Metadata = { title: "Verify your email address" };

export default async function VerifyEmailPage({ searchParams }: { searchParams: Promise<{ token?: string | string[] }> }) {
  const { token } = await searchParams;
  return (
    <>
      <h1>Verify your email address</h1>
      {typeof token === "string" && token ? (
        <VerifyEmailForm token={token} />
      ) : (
        <p className="form-error" role="alert">
          This page needs the link from the verification mail, whole (it ends in ?token=...).
        </p>
      )}
    </>
  );
}
