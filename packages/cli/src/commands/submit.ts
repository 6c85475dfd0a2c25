/**
 * sfbench submit --manifest target.json [--image-archive FILE] [--server URL] [--wait | --register-only]:
 * validate the manifest locally (the portal's schema), upload the source files
 * its loc globs select (the portal counts the lines of code from them; the
 * count made here is sent only as declared) and the image archive when given,
 * submit, print the run's URL; with --wait follow it to the end and print its
 * summary table.
 */
import { existsSync } from "node:fs";
import { dirname } from "node:path";
import {
  cellName,
  cellsOf,
  DISTRIBUTION_CHOICES,
  ENVIRONMENT_KINDS,
  EXPERIMENT_TEXT,
  EXPERIMENTS,
  parametersOfChoice,
  PROFILES,
  WORKLOAD_CHOICES,
} from "@sfbench/core/contract";
import { ApiError, mutation, noTokenError, remote } from "../api.ts";
import { intFlag, oneOf, parseFlags, UsageError, urlFlag } from "../args.ts";
import { followRun } from "../follow.ts";
import { countLoc } from "@sfbench/provider-local/loc";
import { readManifest } from "../manifest-file.ts";
import { packSources, upload, type UploadKind } from "../upload.ts";
import { note } from "../progress.ts";

export async function submit(argv: string[]): Promise<number> {
  const cmd = "sfbench submit";
  const { values } = parseFlags(cmd, argv, {
    manifest: { type: "string", value: "FILE", help: "the target.json to submit" },
    "image-archive": {
      type: "string",
      value: "FILE",
      help: "the target's image as a tar from `podman save` or `docker save` (no registry needed); it must hold target.json's image",
    },
    server: { type: "string", value: "URL", help: "the portal, default SFBENCH_SERVER or http://127.0.0.1:3000" },
    wait: { type: "boolean", help: "follow the run until it ends, print its summary table; exit with its outcome" },
    "register-only": {
      type: "boolean",
      help: "store the system and version without queuing a run (a campaign, `sfbench campaign --server`, measures it next)",
    },
    profile: { type: "string", value: PROFILES.join("|"), help: "default standard (ranked: knee to 10%); quick is a smoke test" },
    environment: { type: "string", value: ENVIRONMENT_KINDS.join("|"), help: "default local" },
    nodes: { type: "string", value: "N", help: "node count for kubernetes, default 1" },
    workload: { type: "string", value: WORKLOAD_CHOICES.join("|"), help: "default all" },
    distribution: { type: "string", value: DISTRIBUTION_CHOICES.join("|"), help: "default both" },
    experiment: {
      type: "string",
      value: EXPERIMENTS.join("|"),
      help: `default throughput (${EXPERIMENT_TEXT.throughput}); fault: ${EXPERIMENT_TEXT.fault}; scale-up: ${EXPERIMENT_TEXT["scale-up"]}; recovery: ${EXPERIMENT_TEXT.recovery}`,
    },
  });
  if (!values.manifest) throw new UsageError(`${cmd}: --manifest FILE is required (the target's target.json)`);
  if (values["register-only"] && values.wait) throw new UsageError(`${cmd}: --register-only queues no run, so there is nothing to --wait for`);
  if (values["image-archive"] && !existsSync(values["image-archive"]))
    throw new UsageError(`${cmd}: --image-archive ${values["image-archive"]}: no such file (write one with podman save -o image.tar <image>)`);
  const profile = oneOf(cmd, "--profile", values.profile, PROFILES) ?? "standard";
  const environmentKind = oneOf(cmd, "--environment", values.environment, ENVIRONMENT_KINDS) ?? "local";
  const nodes = intFlag(cmd, "nodes", values.nodes, 1, 64) ?? 1;
  const workload = oneOf(cmd, "--workload", values.workload, WORKLOAD_CHOICES) ?? "all";
  const distribution = oneOf(cmd, "--distribution", values.distribution, DISTRIBUTION_CHOICES) ?? "both";
  const chosen = parametersOfChoice(workload, distribution);
  const experiment = oneOf(cmd, "--experiment", values.experiment, EXPERIMENTS) ?? "throughput";
  const r = remote(urlFlag(cmd, "server", values.server));
  if (!r.token) throw noTokenError(r);

  const { text, manifest } = readManifest(cmd, values.manifest);
  const { loc } = await countLoc(dirname(values.manifest), manifest, values.manifest);
  note(
    `${manifest.name} ${manifest.version}: manifest valid; LOC counted here (sent as declared: sfbench counts its own from the uploaded sources) ${Object.entries(
      loc,
    )
      .map(([l, c]) => `${l} ${c.app} app + ${c.gateway} gateway`)
      .join(", ")}`,
  );
  let submitted: { runId?: string; systemSlug: string; version: string };
  const sources = await packSources(values.manifest, manifest);
  try {
    const sent = async (kind: UploadKind, file: string) => {
      const u = await upload(r, kind, file);
      note(`${kind}: uploaded ${file} (${u.size} bytes, ${u.sha256})`);
      return u.id;
    };
    // the image first: it is the one the portal is likelier to refuse (its size, its image), and then nothing else was sent
    const imageArchive = values["image-archive"] ? await sent("image-archive", values["image-archive"]) : undefined;
    const sourceArchive = await sent("source-archive", sources.file);
    submitted = await mutation(r, values["register-only"] ? "submissions.register" : "submissions.submit", {
      name: manifest.name,
      system: manifest.system,
      version: manifest.version,
      image: manifest.image ?? "",
      repository: manifest.repository ?? "",
      manifest: text,
      loc: JSON.stringify(loc),
      environmentKind,
      nodes,
      profile,
      sourceArchive,
      ...(imageArchive ? { imageArchive } : {}),
      ...chosen,
      experiment,
    });
  } catch (e) {
    if (e instanceof ApiError) throw new ApiError(`${cmd}: refused by ${r.server} (${e.status}):\n${e.message}`, e.status, e.fields);
    throw e;
  } finally {
    sources.cleanup();
  }
  if (!submitted.runId) {
    process.stdout.write(`registered ${submitted.systemSlug} ${submitted.version}: ${r.server}/systems/${submitted.systemSlug}\n`);
    return 0;
  }
  const url = `${r.server}/runs/${submitted.runId}`;
  process.stdout.write(`${url}\n`);
  if (!values.wait) return 0;

  // the recovery experiment runs no cells
  return followRun(r, submitted.runId, { cells: experiment === "recovery" ? [] : cellsOf(chosen).map(cellName) });
}
