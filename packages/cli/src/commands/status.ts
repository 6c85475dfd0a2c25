/** sfbench status <run> [--server URL] [--json]: where a submitted run is. */
import { query, remote } from "../api.ts";
import { parseFlags, UsageError, urlFlag } from "../args.ts";

export interface RunProgress {
  id: string;
  status: "queued" | "running" | "completed" | "failed" | "needs_cluster";
  stage: string | null;
  progress: number;
  errorStage: string | null;
  errorMessage: string | null;
}

export const describeProgress = (p: RunProgress) =>
  p.status === "failed"
    ? `failed during ${p.errorStage ?? "?"}: ${p.errorMessage ?? ""}`
    : p.status === "needs_cluster"
      ? `needs cluster: ${p.errorMessage ?? "waits for the cluster provider"}`
      : p.status === "running"
        ? `running: ${p.stage ?? "starting"} (${p.progress}%)`
        : p.status;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export async function status(argv: string[]): Promise<number> {
  const { values, positionals } = parseFlags("sfbench status", argv, {
    server: { type: "string", value: "URL", help: "the portal" },
    json: { type: "boolean", help: "print the run's progress as JSON" },
  }, { max: 1, names: ["<run id>"] });
  const id = positionals[0];
  if (!id || !UUID.test(id)) throw new UsageError(`sfbench status: <run id> must be a run id (a UUID), got "${id ?? ""}"`);
  const r = remote(urlFlag("sfbench status", "server", values.server));
  const p = await query<RunProgress>(r, "runs.progress", { id });
  process.stdout.write(values.json ? JSON.stringify(p, null, 2) + "\n" : `run ${p.id}: ${describeProgress(p)}\n${r.server}/runs/${p.id}\n`);
  return p.status === "failed" ? 1 : 0;
}
