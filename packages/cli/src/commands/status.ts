/** sfbench status <run id | run URL> [--server URL] [--json]: where a submitted run is. */
import { describeProgress, type ProgressEvent } from "@sfbench/core/contract";
import { query, remote } from "../api.ts";
import { parseFlags, urlFlag } from "../args.ts";
import { EXIT } from "../exit.ts";
import { parseRunRef } from "../run-ref.ts";

export const RUN_STATUSES = ["queued", "running", "completed", "failed", "interrupted", "needs_cluster"] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

export interface RunProgress {
  id: string;
  status: RunStatus;
  stage: string | null;
  progress: number;
  errorStage: string | null;
  errorMessage: string | null;
  /** the run's last progress event (core ProgressEvent), while it runs */
  live?: ProgressEvent | null;
}

export const isFinished = (status: RunStatus) => status !== "queued" && status !== "running";

export const describeRun = (p: RunProgress) =>
  p.status === "failed"
    ? `failed during ${p.errorStage ?? "?"}: ${p.errorMessage ?? ""}`
    : p.status === "interrupted"
      ? `interrupted during ${p.errorStage ?? "?"} (not the target's fault; no numbers): ${p.errorMessage ?? ""}`
      : p.status === "needs_cluster"
        ? `needs cluster: ${p.errorMessage ?? "waits for the cluster provider"}`
        : p.status === "running"
          ? `running: ${p.stage ?? "starting"} (${p.progress}%)${p.live ? `: ${describeProgress(p.live).join("  ")}` : ""}`
          : p.status;

/** How a finished run ends the command: completed 0, failed 1 (the target's fault), interrupted or needs_cluster 3 (not the target's). */
export const exitCodeOf = (status: RunStatus) =>
  status === "failed" ? EXIT.failed : status === "interrupted" || status === "needs_cluster" ? EXIT.environment : EXIT.ok;

export async function status(argv: string[]): Promise<number> {
  const cmd = "sfbench status";
  const { values, positionals } = parseFlags(
    cmd,
    argv,
    {
      server: { type: "string", value: "URL", help: "the portal" },
      json: { type: "boolean", help: "print the run's progress as JSON" },
    },
    { max: 1, names: ["<run id | run URL>"] },
  );
  const serverFlag = urlFlag(cmd, "server", values.server);
  const run = parseRunRef(cmd, positionals[0], serverFlag);
  const r = remote(serverFlag ?? run.server);
  const p = await query<RunProgress>(r, "runs.progress", { id: run.id });
  process.stdout.write(values.json ? JSON.stringify(p, null, 2) + "\n" : `run ${p.id}: ${describeRun(p)}\n${r.server}/runs/${p.id}\n`);
  return exitCodeOf(p.status);
}
