"use client";
/** Rate a system (1-5 twice, optional comment); one rating per user, editable. */
import { useMutation } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useState, type FormEvent } from "react";
import { Field } from "./field.tsx";
import { fieldsOf, messageOf, useTRPC } from "./trpc.ts";

interface Rating {
  programmingModel: number;
  understandability: number;
  comment: string | null;
}

function Scale({ name, label, value, onChange, errors }: { name: string; label: string; value: number; onChange: (v: number) => void; errors?: string[] }) {
  return (
    <Field name={name} label={label} errors={errors}>
      <select id={name} value={value} onChange={(e) => onChange(Number(e.target.value))}>
        {[1, 2, 3, 4, 5].map((n) => (
          <option key={n} value={n}>
            {n}
          </option>
        ))}
      </select>
    </Field>
  );
}

export function RatingForm({ slug, mine }: { slug: string; mine: Rating | null }) {
  const trpc = useTRPC();
  const router = useRouter();
  const [programmingModel, setPm] = useState(mine?.programmingModel ?? 3);
  const [understandability, setU] = useState(mine?.understandability ?? 3);
  const [comment, setComment] = useState(mine?.comment ?? "");
  const rate = useMutation(trpc.ratings.rate.mutationOptions({ onSuccess: () => router.refresh() }));
  const fields = fieldsOf(rate.error);
  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    rate.mutate({ slug, programmingModel, understandability, comment: comment || undefined });
  };
  return (
    <form className="form" onSubmit={onSubmit} noValidate>
      <div className="row">
        <Scale name="programmingModel" label="Programming model (1-5)" value={programmingModel} onChange={setPm} errors={fields.programmingModel} />
        <Scale name="understandability" label="Understandability (1-5)" value={understandability} onChange={setU} errors={fields.understandability} />
      </div>
      <Field name="comment" label="Comment (optional)" errors={fields.comment}>
        <textarea id="comment" rows={2} value={comment} onChange={(e) => setComment(e.target.value)} maxLength={2000} />
      </Field>
      {rate.error && Object.keys(fields).length === 0 ? (
        <p className="form-error" role="alert">
          {messageOf(rate.error)}
        </p>
      ) : null}
      {rate.data ? (
        <p className="ok" role="status">
          {rate.data.counted ? "Saved; it counts in the means above." : `Saved, but not counted yet: ${rate.data.why}.`}
        </p>
      ) : null}
      <button type="submit" disabled={rate.isPending}>
        {mine ? "Update my rating" : "Rate"}
      </button>
    </form>
  );
}
