import type { Metadata } from "next";
import Link from "next/link";
import { AuthForm } from "../../client/auth-form.tsx";

export const metadata: Metadata = { title: "Sign in" };

export default async function SignInPage({ searchParams }: { searchParams: Promise<{ next?: string }> }) {
  const { next } = await searchParams;
  return (
    <>
      <h1>Sign in</h1>
      <AuthForm mode="signIn" next={typeof next === "string" ? next : undefined} />
      <p className="muted">
        No account? <Link href="/signup">Sign up</Link>.
      </p>
    </>
  );
}
