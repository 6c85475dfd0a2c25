"use client";
/** The owner's form for a system's description and repository. */
import { useMutation } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useState, type FormEvent } from "react";
import { Field } from "./field.tsx";
import { fieldsOf, messageOf, useTRPC } from "./trpc.ts";

export function SystemEditForm({ slug, description, repository }: { slug: string; description: string | null; repository: string | null }) {
  const trpc = useTRPC();
  const router = useRouter();
  const [desc, setDesc] = useState(description ?? "");
  const [repo, setRepo] = useState(repository ?? "");
  const update = useMutation(trpc.systems.update.mutationOptions({ onSuccess: () => router.refresh() }));
  const fields = fieldsOf(update.error);
  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    update.mutate({ slug, description: desc.trim() || null, repository: repo.trim() || null });
  };
  return (
    <form className="form" onSubmit={onSubmit} noValidate>
      <Field name="description" label="Description" errors={fields.description}>
        <textarea id="description" rows={3} value={desc} onChange={(e) => setDesc(e.target.value)} />
      </Field>
      <Field name="repository" label="Repository URL" errors={fields.repository}>
        <input id="repository" value={repo} onChange={(e) => setRepo(e.target.value)} />
      </Field>
      {update.error && Object.keys(fields).length === 0 ? <p className="form-error" role="alert">{messageOf(update.error)}</p> : null}
      <button type="submit" disabled={update.isPending}>Save</button>
    </form>
  );
}
