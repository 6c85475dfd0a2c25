"use client";
/**
 * The submission form. target.json is read in the browser and validated with
 * the same schema as on the server (shared/submit.ts); errors appear next to
 * their field, whether the browser or the server found them. The image
 * archive and the source files are uploaded first (upload-file.ts), then the
 * submission names the uploads.
 */
import { useMutation } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useState, type ChangeEvent, type FormEvent } from "react";
import {
  buildManifest,
  DEFAULT_PROFILE,
  ENVIRONMENT_KINDS,
  EXPERIMENT_TEXT,
  EXPERIMENTS,
  formFieldsOf,
  PROFILES,
  SMOKE_PROFILES,
  SubmitInput,
} from "../shared/submit.ts";
import { Field, FieldErrorText } from "./field.tsx";
import { fieldsOf, messageOf, useTRPC } from "./trpc.ts";
import { uploadFile, type FormUploadKind } from "./upload-file.ts";

type Text = "name" | "system" | "version" | "image" | "repository" | "loc";
const EMPTY: Record<Text, string> = { name: "", system: "", version: "", image: "", repository: "", loc: "" };

export function SubmitForm() {
  const trpc = useTRPC();
  const router = useRouter();
  const [values, setValues] = useState(EMPTY);
  const [manifest, setManifest] = useState<{ file: string; text: string } | null>(null);
  const [environmentKind, setKind] = useState<(typeof ENVIRONMENT_KINDS)[number]>("local");
  const [nodes, setNodes] = useState("1");
  const [profile, setProfile] = useState<(typeof PROFILES)[number]>(DEFAULT_PROFILE);
  const [experiment, setExperiment] = useState<(typeof EXPERIMENTS)[number]>("throughput");
  const [local, setLocal] = useState<Record<string, string[]>>({});
  const [files, setFiles] = useState<Partial<Record<FormUploadKind, File>>>({});
  const [uploading, setUploading] = useState(false);
  const submit = useMutation(trpc.submissions.submit.mutationOptions({ onSuccess: (r) => router.push(`/runs/${r.runId}`) }));
  const errors = { ...fieldsOf(submit.error), ...local };

  const set = (field: Text) => (e: ChangeEvent<HTMLInputElement | HTMLTextAreaElement>) => setValues((v) => ({ ...v, [field]: e.target.value }));

  const onFile = async (e: ChangeEvent<HTMLInputElement>) => {
    const file = e.target.files?.[0];
    if (!file) return setManifest(null);
    const text = await file.text();
    setManifest({ file: file.name, text });
    setValues((v) => ({ ...v, ...Object.fromEntries(Object.entries(formFieldsOf(text)).filter(([k]) => !v[k as Text])) }));
    const built = buildManifest({ manifest: text });
    setLocal(built.ok ? {} : { manifest: built.fields.manifest ?? Object.values(built.fields).flat() });
    submit.reset();
  };

  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    submit.reset();
    const input = { ...values, manifest: manifest?.text ?? "", environmentKind, nodes: Number(nodes), profile, experiment };
    const parsed = SubmitInput.safeParse(input);
    const found: Record<string, string[]> = {};
    if (!parsed.success) {
      for (const issue of parsed.error.issues) (found[String(issue.path[0] ?? "manifest")] ??= []).push(issue.message);
    } else {
      const built = buildManifest(parsed.data);
      if (!built.ok) Object.assign(found, built.fields);
    }
    setLocal(found);
    if (Object.keys(found).length === 0) void uploadThenSubmit(input);
  };

  const uploadThenSubmit = async (input: SubmitInput) => {
    setUploading(true);
    try {
      const ids: Record<string, string> = {};
      const refused: Record<string, string[]> = {};
      for (const [kind, file] of Object.entries(files) as [FormUploadKind, File][]) {
        const r = await uploadFile(kind, file);
        if (r.ok) ids[kind === "image-archive" ? "imageArchive" : "sourceArchive"] = r.id;
        else refused[r.field] = [r.message];
      }
      setLocal(refused);
      if (Object.keys(refused).length === 0) submit.mutate({ ...input, ...ids });
    } finally {
      setUploading(false);
    }
  };

  const pick = (kind: FormUploadKind) => (e: ChangeEvent<HTMLInputElement>) => {
    const file = e.target.files?.[0];
    setFiles(({ [kind]: _dropped, ...rest }) => (file ? { ...rest, [kind]: file } : rest));
  };

  const text = (field: Text, label: string, hint?: string, placeholder?: string) => (
    <Field name={field} label={label} hint={hint} errors={errors[field]}>
      <input id={field} name={field} value={values[field]} onChange={set(field)} placeholder={placeholder} aria-invalid={Boolean(errors[field])} />
    </Field>
  );

  return (
    <form className="form" onSubmit={onSubmit} noValidate>
      <Field
        name="manifest"
        label="target.json"
        hint={
          <>
            The manifest of your target (<a href="/docs/targets">how to write one</a>). Its fields fill the inputs below.
          </>
        }
        errors={errors.manifest}
      >
        <input id="manifest" name="manifest" type="file" accept=".json,application/json" onChange={onFile} aria-invalid={Boolean(errors.manifest)} />
      </Field>
      {manifest ? (
        <p className="hint">
          Read {manifest.file} ({manifest.text.length} bytes).
        </p>
      ) : null}
      {text("name", "Name", "the target name: the leaderboard row and the URL (a-z, 0-9, -)", "my-system")}
      {text("system", "System", "the system benchmarked, as people know it", "Restate")}
      {text("version", "Version", "of your implementation, a semantic version", "0.1.0")}
      {text(
        "image",
        "Image",
        "the OCI image of your target: with its archive below it runs on sfbench's machine, without one it waits for a cluster (optional)",
        "ghcr.io/you/my-system:0.1.0",
      )}
      {text("repository", "Repository URL", "where the source lives (optional)", "https://github.com/you/my-system")}
      <Field
        name="imageArchive"
        label="Image archive"
        hint={
          <>
            Your image as a tar, no registry needed: <code>podman save -o image.tar {values.image || "<image>"}</code> (docker-archive or oci-archive; it must
            hold the image above). Optional.
          </>
        }
        errors={errors.imageArchive}
      >
        <input
          id="imageArchive"
          name="imageArchive"
          type="file"
          accept=".tar,application/x-tar"
          onChange={pick("image-archive")}
          aria-invalid={Boolean(errors.imageArchive)}
        />
      </Field>
      <Field
        name="sourceArchive"
        label="Source files"
        hint={
          <>
            A tar or tar.gz of the files target.json&apos;s <code>loc</code> globs select, named relative to target.json: sfbench counts the lines of code from
            them (<code>sfbench submit</code> packs and sends them for you).
          </>
        }
        errors={errors.sourceArchive}
      >
        <input
          id="sourceArchive"
          name="sourceArchive"
          type="file"
          accept=".tar,.tgz,.gz,application/x-tar,application/gzip"
          onChange={pick("source-archive")}
          aria-invalid={Boolean(errors.sourceArchive)}
        />
      </Field>
      <Field
        name="loc"
        label="Declared lines of code"
        hint={
          <>
            Your own count, shown only as declared (sfbench counts from the source files): JSON per language, application and gateway code apart,{" "}
            <code>{'{"typescript": {"app": 812, "gateway": 140}}'}</code> (optional)
          </>
        }
        errors={errors.loc}
      >
        <textarea id="loc" name="loc" rows={3} value={values.loc} onChange={set("loc")} aria-invalid={Boolean(errors.loc)} />
      </Field>
      <div className="row">
        <Field name="environmentKind" label="Environment" errors={errors.environmentKind}>
          <select id="environmentKind" value={environmentKind} onChange={(e) => setKind(e.target.value as typeof environmentKind)}>
            {ENVIRONMENT_KINDS.map((k) => (
              <option key={k} value={k}>
                {k}
              </option>
            ))}
          </select>
        </Field>
        <Field name="nodes" label="Nodes" errors={errors.nodes}>
          <input id="nodes" type="number" min={1} max={64} value={nodes} onChange={(e) => setNodes(e.target.value)} />
        </Field>
        <Field name="profile" label="Profile" errors={errors.profile}>
          <select id="profile" value={profile} onChange={(e) => setProfile(e.target.value as typeof profile)}>
            {PROFILES.map((p) => (
              <option key={p} value={p}>
                {p}
                {SMOKE_PROFILES.includes(p) ? " (smoke test, not ranked)" : ""}
              </option>
            ))}
          </select>
        </Field>
        <Field name="experiment" label="Experiment" errors={errors.experiment}>
          <select id="experiment" value={experiment} onChange={(e) => setExperiment(e.target.value as typeof experiment)}>
            {EXPERIMENTS.map((x) => (
              <option key={x} value={x}>
                {x}: {EXPERIMENT_TEXT[x]}
              </option>
            ))}
          </select>
        </Field>
      </div>
      {submit.error && Object.keys(fieldsOf(submit.error)).length === 0 ? (
        <p className="form-error" role="alert">
          {messageOf(submit.error)}
        </p>
      ) : null}
      <FieldErrorText name="input" errors={errors.input} />
      <button type="submit" disabled={submit.isPending || uploading}>
        {uploading ? "Uploading…" : "Submit for benchmarking"}
      </button>
    </form>
  );
}
