"use client";
/** API tokens: create (shown once), list, revoke. */
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { fmtDate } from "../shared/format.ts";
import { DEFAULT_TOKEN_DAYS, TOKEN_DAYS } from "../shared/token-days.ts";
import { Field } from "./field.tsx";
import { fieldsOf, messageOf, useTRPC } from "./trpc.ts";

export function TokensPanel() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [name, setName] = useState("");
  const [days, setDays] = useState<string>(String(DEFAULT_TOKEN_DAYS));
  const [created, setCreated] = useState<{ name: string; token: string } | null>(null);
  const list = useQuery(trpc.tokens.list.queryOptions());
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.tokens.list.queryKey() });
  const create = useMutation(
    trpc.tokens.create.mutationOptions({
      onSuccess: (token) => {
        setCreated({ name: token.name, token: token.token });
        setName("");
        void refresh();
      },
    }),
  );
  const revoke = useMutation(trpc.tokens.revoke.mutationOptions({ onSuccess: () => void refresh() }));
  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate({ name, days: days === "never" ? null : Number(days) });
  };
  return (
    <div>
      <form className="form inline" onSubmit={onSubmit} noValidate>
        <Field name="token-name" label="Token name" errors={fieldsOf(create.error).name}>
          <input id="token-name" name="name" value={name} onChange={(e) => setName(e.target.value)} placeholder="laptop" />
        </Field>
        <Field name="token-days" label="Expires after" errors={fieldsOf(create.error).days}>
          <select id="token-days" value={days} onChange={(e) => setDays(e.target.value)}>
            {TOKEN_DAYS.map((d) => (
              <option key={String(d)} value={d === null ? "never" : String(d)}>
                {d === null ? "never (until revoked)" : `${d} days`}
              </option>
            ))}
          </select>
        </Field>
        <button type="submit" disabled={create.isPending}>
          Create token
        </button>
      </form>
      {created ? (
        <div className="notice" data-testid="new-token">
          <p>
            Token <strong>{created.name}</strong>: copy it now, it is not shown again.
          </p>
          <code className="token">{created.token}</code>
          <p className="hint">
            Use it as <code>Authorization: Bearer &lt;token&gt;</code> (e.g. <code>SFBENCH_TOKEN=… npx sfbench submit</code>).
          </p>
        </div>
      ) : null}
      {list.error ? <p className="form-error">{messageOf(list.error)}</p> : null}
      <table className="table">
        <thead>
          <tr>
            <th>Name</th>
            <th>Token</th>
            <th>Created</th>
            <th>Last used</th>
            <th>Expires</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {(list.data ?? []).map((t) => (
            <tr key={t.id} className={t.revokedAt ? "revoked" : undefined}>
              <td>{t.name}</td>
              <td>
                <code>{t.prefix}…</code>
              </td>
              <td>{fmtDate(t.createdAt)}</td>
              <td>{fmtDate(t.lastUsedAt)}</td>
              <td data-testid="token-expires">{t.expiresAt ? `${new Date(t.expiresAt) <= new Date() ? "expired " : ""}${fmtDate(t.expiresAt)}` : "never"}</td>
              <td>
                {t.revokedAt ? (
                  `revoked ${fmtDate(t.revokedAt)}`
                ) : (
                  <button type="button" className="danger" onClick={() => revoke.mutate({ id: t.id })} disabled={revoke.isPending}>
                    Revoke
                  </button>
                )}
              </td>
            </tr>
          ))}
          {list.data?.length === 0 ? (
            <tr>
              <td colSpan={5} className="muted">
                No tokens yet.
              </td>
            </tr>
          ) : null}
        </tbody>
      </table>
    </div>
  );
}
