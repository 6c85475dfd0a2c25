/**
 * Where an operator link lands (`/operator-setup?token=...`, printed by
 * `npm run operator` on the portal's machine): the operator sets the
 * account's password; a bad, used or expired link says so when the form is
 * sent.
 */
import type { Metadata } from "next";
import { OperatorSetupForm } from "../../client/operator-setup-form.tsx";

export const metadata: Metadata = { title: "Set up the operator's account" };

export default async function OperatorSetupPage({ searchParams }: { searchParams: Promise<{ token?: string | string[] }> }) {
  const { token } = await searchParams;
  return (
    <>
      <h1>Set up the operator&apos;s account</h1>
      {typeof token !== "string" || !token ? (
        <p className="form-error" role="alert">
          This page needs the link `npm run operator` printed, whole (it ends in ?token=...).
        </p>
      ) : (
        <>
          <p className="muted">
            Choose the password of the operator&apos;s account. Whoever held an account with this address before loses it: its sessions and API tokens are
            deleted.
          </p>
          <OperatorSetupForm token={token} />
        </>
      )}
    </>
  );
}
