"use client";
/** The owner's form for a system's repository link (name and description come from the newest verified version's target.json). */
import { useMutation } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useState, type FormEvent } from "react";
import { Field } from "./field.tsx";
import { fieldsOf, messageOf, useTRPC } from "./trpc.ts";

export function SystemEditForm({ slug, repository }: { slug: string; repository: string | null }) {
  const trpc = useTRPC();
  const router = useRouter();
  const [repo, setRepo] = useState(repository ?? "");
  const update = useMutation(trpc.systems.update.mutationOptions({ onSuccess: () => router.refresh() }));
  const fields = fieldsOf(update.error);
  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    update.mutate({ slug, repository: repo.trim() || null });
  };
  return (
    <form className="form" onSubmit={onSubmit} noValidate>
      <p className="muted">The name and description come from target.json: they change when a new version verifies.</p>
      <Field name="repository" label="Repository URL" errors={fields.repository}>
        <input id="repository" value={repo} onChange={(e) => setRepo(e.target.value)} />
      </Field>
      {update.error && Object.keys(fields).length === 0 ? (
        <p className="form-error" role="alert">
          {messageOf(update.error)}
        </p>
      ) : null}
      <button type="submit" disabled={update.isPending}>
        Save
      </button>
    </form>
  );
}
