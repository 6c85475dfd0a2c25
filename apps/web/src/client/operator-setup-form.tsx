"use client";
/**
 * The page an operator link opens: the operator chooses the account's
 * password, which takes the account (made now, or taken from whoever signed
 * up with the address) and signs the operator in. The link itself changes
 * nothing (a GET).
 */
import { useMutation } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useState, type FormEvent } from "react";
import { Field } from "./field.tsx";
import { fieldsOf, messageOf, useTRPC } from "./trpc.ts";

export function OperatorSetupForm({ token }: { token: string }) {
  const trpc = useTRPC();
  const router = useRouter();
  const [password, setPassword] = useState("");
  const claim = useMutation(trpc.auth.claimOperator.mutationOptions({ onSuccess: () => router.refresh() }));
  const fields = fieldsOf(claim.error);
  if (claim.data) {
    return (
      <p className="ok" role="status" data-testid="operator-setup-result">
        {claim.data.operator
          ? `${claim.data.email} is the operator's account, and you are signed in.`
          : `${claim.data.email} has its password, but SFBENCH_OPERATOR_EMAIL names another address: it is not the operator's until that variable names it.`}
      </p>
    );
  }
  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    claim.mutate({ token, password });
  };
  return (
    <form className="form narrow" onSubmit={onSubmit} noValidate>
      <Field name="password" label="Password" hint="at least 10 characters" errors={fields.password}>
        <input
          id="password"
          name="password"
          type="password"
          autoComplete="new-password"
          value={password}
          onChange={(e) => setPassword(e.target.value)}
          required
        />
      </Field>
      {claim.error && Object.keys(fields).length === 0 ? (
        <p className="form-error" role="alert" data-testid="operator-setup-result">
          {messageOf(claim.error)}
        </p>
      ) : null}
      <button type="submit" disabled={claim.isPending}>
        Set the password and take the account
      </button>
    </form>
  );
}
