"use client";
/** The nav's sign-out button. */
import { useMutation } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useTRPC } from "./trpc.ts";

export function SignOutButton() {
  const trpc = useTRPC();
  const router = useRouter();
  const signOut = useMutation(
    trpc.auth.signOut.mutationOptions({
      onSettled: () => {
        router.push("/");
        router.refresh();
      },
    }),
  );
  return (
    <button type="button" className="link-button" onClick={() => signOut.mutate()} disabled={signOut.isPending}>
      Sign out
    </button>
  );
}
