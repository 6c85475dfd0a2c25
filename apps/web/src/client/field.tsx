/** A labelled form field with its error shown inline, next to it. */
import type { ReactNode } from "react";

export function FieldErrorText({ name, errors }: { name: string; errors?: string[] }) {
  if (!errors?.length) return null;
  return (
    <p className="field-error" id={`${name}-error`} role="alert" data-field={name}>
      {errors.join("\n")}
    </p>
  );
}

export function Field({ name, label, hint, errors, children }: { name: string; label: string; hint?: ReactNode; errors?: string[]; children: ReactNode }) {
  return (
    <div className={`field${errors?.length ? " has-error" : ""}`}>
      <label htmlFor={name}>{label}</label>
      {children}
      {hint ? <p className="hint">{hint}</p> : null}
      <FieldErrorText name={name} errors={errors} />
    </div>
  );
}
