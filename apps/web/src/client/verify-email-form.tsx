"use client";
/**
 * The page a verification link opens: one button that verifies. The link
 * itself changes nothing (a GET), so a mail scanner that fetches it does not
 * use the token up before its owner clicks.
 */
import { useMutation } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { messageOf, useTRPC } from "./trpc.ts";

export function VerifyEmailForm({ token }: { token: string }) {
  const trpc = useTRPC();
  const router = useRouter();
  const verify = useMutation(trpc.auth.verifyEmail.mutationOptions({ onSuccess: () => router.refresh() }));
  if (verify.data) {
    return <p className="ok" role="status" data-testid="verify-result">{`${verify.data.email} is verified: your ratings count.`}</p>;
  }
  return (
    <>
      <button type="button" onClick={() => verify.mutate({ token })} disabled={verify.isPending} data-testid="verify-button">
        Verify my email address
      </button>
      {verify.error ? (
        <p className="form-error" role="alert" data-testid="verify-result">
          {messageOf(verify.error)}
        </p>
      ) : null}
    </>
  );
}
