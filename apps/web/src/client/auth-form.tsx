"use client";
/** Sign in / sign up with email and password; on success the session cookie is set and the page reloads its data. */
import { useMutation } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useState, type FormEvent } from "react";
import { Field } from "./field.tsx";
import { fieldsOf, messageOf, useTRPC } from "./trpc.ts";

export function AuthForm({ mode, next }: { mode: "signIn" | "signUp"; next?: string }) {
  const trpc = useTRPC();
  const router = useRouter();
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const done = () => {
    // only a path on this site: "//evil.example" and "/\\evil.example" would leave it
    router.push(next && /^\/(?![/\\])/.test(next) ? next : "/");
    router.refresh();
  };
  const signIn = useMutation(trpc.auth.signIn.mutationOptions({ onSuccess: done }));
  const signUp = useMutation(trpc.auth.signUp.mutationOptions({ onSuccess: done }));
  const mutation = mode === "signIn" ? signIn : signUp;
  const fields = fieldsOf(mutation.error);
  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    mutation.mutate({ email, password });
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
      {mutation.error && Object.keys(fields).length === 0 ? <p className="form-error" role="alert">{messageOf(mutation.error)}</p> : null}
      <button type="submit" disabled={mutation.isPending}>
        {mode === "signIn" ? "Sign in" : "Create account"}
      </button>
    </form>
  );
}
