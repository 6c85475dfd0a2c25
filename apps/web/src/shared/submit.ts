/**
 * The submission form, shared by the browser and the server: the same zod
 * schemas (the form fields reuse TargetManifest's own field schemas) and the
 * same `buildManifest`, so a target.json the browser accepts is exactly one the
 * server accepts, and both name the same field when it is not.
 */
import {
  Distribution,
  DISTRIBUTIONS,
  ENVIRONMENT_KINDS,
  EnvironmentKind,
  Experiment,
  EXPERIMENT_TEXT,
  EXPERIMENTS,
  Profile,
  PROFILES,
  SMOKE_PROFILES,
  Workload,
  WORKLOADS,
} from "@sfbench/core/contract";
import { formatManifestErrors, TargetManifest } from "@sfbench/core/manifest";
import { z } from "zod";

const blankToUndefined = (v: unknown) => (typeof v === "string" && v.trim() === "" ? undefined : v);

export { ENVIRONMENT_KINDS, EXPERIMENT_TEXT, EXPERIMENTS, PROFILES, SMOKE_PROFILES };
/** Submissions default to a profile whose numbers the leaderboard ranks (the knee bisected to 10%); quick is a smoke test. */
export const DEFAULT_PROFILE = "standard" satisfies Profile;

export const SubmitInput = z
  .object({
    /** target.json `name`: the leaderboard row and URL slug */
    name: TargetManifest.shape.name,
    /** target.json `system`: the display name */
    system: TargetManifest.shape.system,
    version: TargetManifest.shape.version,
    image: z.preprocess(blankToUndefined, TargetManifest.shape.image),
    repository: z.preprocess(blankToUndefined, TargetManifest.shape.repository),
    /** the uploaded target.json, as text */
    manifest: z.string().min(1, { message: "upload your target.json" }).max(64_000, { message: "is over 64 kB; a target.json is a few hundred bytes" }),
    /** the submitter's own count, `sfbench loc --json` output or {"<language>": {"app": n, "gateway": n}}, as text: stored and shown only as declared (sfbench counts from the source) */
    loc: z.preprocess(blankToUndefined, z.string().max(20_000).optional()),
    /** an image-archive upload's id (POST /api/uploads/image-archive): the image the target runs as */
    imageArchive: z.preprocess(blankToUndefined, z.uuid({ message: "must be the id an upload answered with" }).optional()),
    /** a source-archive upload's id (POST /api/uploads/source-archive): the files sfbench counts the lines of code from */
    sourceArchive: z.preprocess(blankToUndefined, z.uuid({ message: "must be the id an upload answered with" }).optional()),
    environmentKind: EnvironmentKind.default("local"),
    nodes: z.coerce.number().int().min(1).max(64).default(1),
    profile: Profile.default(DEFAULT_PROFILE),
    /** which cells to run; every workload and distribution when absent; none with micro: the microbenchmarks only */
    workloads: z.array(Workload).max(WORKLOADS.length).optional(),
    distributions: z.array(Distribution).min(1).max(DISTRIBUTIONS.length).optional(),
    /** the microbenchmarks (docs/spec.md 8) too; absent: when every workload runs */
    micro: z.boolean().optional(),
    /** the phases each cell goes through: the ramp and stable load (throughput), a kill -9 mid-load (fault), a node added mid-load (scale-up), or recovery time per state size */
    experiment: Experiment.default("throughput"),
  })
  .refine((p) => p.workloads === undefined || p.workloads.length > 0 || p.micro === true, {
    path: ["workloads"],
    message: "must name at least one workload, unless micro is true (microbenchmarks only)",
  });
export type SubmitInput = z.input<typeof SubmitInput>;

/** The form fields a manifest field is shown next to; everything else goes next to the upload. */
const FORM_FIELDS = ["name", "system", "version", "image", "repository"] as const;

export type BuiltManifest = { ok: true; manifest: TargetManifest } | { ok: false; fields: Record<string, string[]> };

/** The uploaded target.json with the form's fields over it, validated with TargetManifest. */
export function buildManifest(input: { manifest: string } & Partial<Record<(typeof FORM_FIELDS)[number], string>>): BuiltManifest {
  let json: unknown;
  try {
    json = JSON.parse(input.manifest);
  } catch (e) {
    return { ok: false, fields: { manifest: [`target.json is not valid JSON: ${(e as Error).message}`] } };
  }
  if (!json || typeof json !== "object" || Array.isArray(json)) {
    return { ok: false, fields: { manifest: ["target.json must be a JSON object"] } };
  }
  const merged: Record<string, unknown> = { ...json };
  for (const field of FORM_FIELDS) if (input[field] !== undefined) merged[field] = input[field];
  const parsed = TargetManifest.safeParse(merged);
  if (parsed.success) return { ok: true, manifest: parsed.data };
  const lines = formatManifestErrors(parsed.error);
  const fields: Record<string, string[]> = {};
  parsed.error.issues.forEach((issue, i) => {
    const top = String(issue.path[0] ?? "");
    const field = (FORM_FIELDS as readonly string[]).includes(top) && issue.path.length === 1 ? top : "manifest";
    (fields[field] ??= []).push(lines[i] ?? issue.message);
  });
  return { ok: false, fields };
}

/** The form's fields from an uploaded target.json, to fill the inputs; {} when it is not an object. */
export function formFieldsOf(text: string): Partial<Record<(typeof FORM_FIELDS)[number], string>> {
  try {
    const json = JSON.parse(text) as Record<string, unknown>;
    if (!json || typeof json !== "object") return {};
    return Object.fromEntries(FORM_FIELDS.filter((f) => typeof json[f] === "string").map((f) => [f, json[f] as string]));
  } catch {
    return {};
  }
}
