"use client";
/** For a signed-in account whose address is not verified: why its ratings do not count, and a button that mails the link again. */
import { useMutation } from "@tanstack/react-query";
import { messageOf, useTRPC } from "./trpc.ts";

export function VerifyEmailNotice({ email }: { email: string }) {
  const trpc = useTRPC();
  const resend = useMutation(trpc.auth.resendVerification.mutationOptions());
  return (
    <div className="muted" data-testid="verify-email-notice">
      <p>
        Your address {email} is not verified, so your ratings are kept but not counted. Follow the link mailed to it at sign-up, or{" "}
        <button type="button" className="link-button" onClick={() => resend.mutate()} disabled={resend.isPending}>
          send the link again
        </button>
        .
      </p>
      {resend.error ? (
        <p className="form-error" role="alert">
          {messageOf(resend.error)}
        </p>
      ) : null}
      {resend.data ? (
        <p className="ok" role="status">
          {resend.data.alreadyVerified
            ? `${resend.data.email} is already verified.`
            : `Sent to ${resend.data.email}; the link works once, until ${resend.data.expiresAt.slice(0, 16).replace("T", " ")} UTC.`}
        </p>
      ) : null}
    </div>
  );
}
