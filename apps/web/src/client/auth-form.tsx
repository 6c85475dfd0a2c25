"use client";
/**
 * Sign in / sign up with email and password; on success the session cookie is
 * set and the page reloads its data. Sign-up answers the same whether or not
 * the email has an account (it signs nobody in), so the form signs in with the
 * same email and password right after it.
 */
import { useMutation } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useState, type FormEvent } from "react";
import { localPath } from "../shared/safe-url.ts";
import { Field } from "./field.tsx";
import { fieldsOf, messageOf, useTRPC } from "./trpc.ts";

export function AuthForm({ mode, next }: { mode: "signIn" | "signUp"; next?: string }) {
  const trpc = useTRPC();
  const router = useRouter();
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const done = () => {
    router.push(localPath(next));
    router.refresh();
  };
  const signIn = useMutation(trpc.auth.signIn.mutationOptions({ onSuccess: done }));
  const signUp = useMutation(trpc.auth.signUp.mutationOptions({ onSuccess: () => signIn.mutate({ email, password }) }));
  const mutation = mode === "signIn" || signUp.isSuccess ? signIn : signUp;
  const fields = fieldsOf(mutation.error);
  // after a sign-up, a failed sign-in means the email had an account with another password (only its owner can know)
  const afterSignUp = mode === "signUp" && signUp.isSuccess && signIn.error?.data?.code === "UNAUTHORIZED";
  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    if (mode === "signUp") {
      signIn.reset();
      signUp.mutate({ email, password });
    } else signIn.mutate({ email, password });
  };
  return (
    <form className="form narrow" onSubmit={onSubmit} noValidate>
      <Field name="email" label="Email" errors={fields.email}>
        <input id="email" name="email" type="email" autoComplete="email" value={email} onChange={(e) => setEmail(e.target.value)} required />
      </Field>
      <Field name="password" label="Password" hint={mode === "signUp" ? "at least 10 characters" : undefined} errors={fields.password}>
        <input
          id="password"
          name="password"
          type="password"
          autoComplete={mode === "signUp" ? "new-password" : "current-password"}
          value={password}
          onChange={(e) => setPassword(e.target.value)}
          required
        />
      </Field>
      {afterSignUp ? (
        <p className="form-error" role="alert">
          Could not sign in with this email and password. If the email already has an account, <a href="/signin">sign in</a> with its password.
        </p>
      ) : mutation.error && Object.keys(fields).length === 0 ? (
        <p className="form-error" role="alert">
          {messageOf(mutation.error)}
        </p>
      ) : null}
      <button type="submit" disabled={signUp.isPending || signIn.isPending}>
        {mode === "signIn" ? "Sign in" : "Create account"}
      </button>
    </form>
  );
}
