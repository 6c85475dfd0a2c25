import type { Metadata } from "next";
import Link from "next/link";
import { AuthForm } from "../../client/auth-form.tsx";

export const metadata: Metadata = { title: "Sign up" };

export default function SignUpPage() {
  return (
    <>
      <h1>Create an account</h1>
      <p className="muted">Reading is public; an account lets you submit targets, rate systems and create API tokens for the CLI.</p>
      <AuthForm mode="signUp" />
      <p className="muted">
        Have one? <Link href="/signin">Sign in</Link>.
      </p>
    </>
  );
}
