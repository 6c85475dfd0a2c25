/**
 * `sfbench campaign --server URL`: the campaign queued on a portal, whose
 * worker runs it (the portal's campaigns.create: one run per system and
 * round, in seeded interleaved order). The systems are the account's own,
 * each run at its latest registered version; the portal's operator may name
 * any, or --all: every registered system beside the reference. Needs nothing of the repository:
 * a team queues a campaign of its systems from the published CLI.
 */
import { DISTRIBUTIONS, PROFILES, WORKLOADS, type Distribution, type Workload } from "@sfbench/core/contract";
import { ApiError, mutation, noTokenError, remote } from "./api.ts";
import { intFlag, oneOf, UsageError, urlFlag } from "./args.ts";
import { BUSY_REPEATS, DEFAULT_TRIALS, MAX_TRIALS } from "./campaign-limits.ts";

export interface RemoteCampaignFlags {
  server?: string;
  targets?: string;
  workload?: string;
  distribution?: string;
  profile?: string;
  trials?: string;
  seed?: string;
  "order-seed"?: string;
  "busy-repeats"?: string;
  reference?: string;
  results?: string;
  "no-trace"?: boolean;
  json?: boolean;
  all?: boolean;
}

interface Created {
  campaignId: string;
  orderSeed: number;
  runs: Array<{ runId: string; system: string; version: string; round: number }>;
}

/** A comma list each of whose items is one of `allowed` ("both"/"all" meaning every one). */
function listFlag<T extends string>(cmd: string, flag: string, raw: string | undefined, allowed: readonly T[], every: string): T[] | undefined {
  if (raw === undefined || raw === every) return undefined;
  const items = raw
    .split(",")
    .map((x) => x.trim())
    .filter(Boolean);
  const wrong = items.filter((x) => !(allowed as readonly string[]).includes(x));
  if (!items.length || wrong.length)
    throw new UsageError(`${cmd}: --${flag} takes ${allowed.join(", ")} (several separated by commas) or ${every}, got "${raw}"`);
  return [...new Set(items)] as T[];
}

export async function campaignOnServer(cmd: string, values: RemoteCampaignFlags): Promise<number> {
  // what only a campaign on this machine has: its trials' documents and the ratio it computes are the portal's here
  for (const flag of ["reference", "results", "no-trace"] as const) {
    if (values[flag] !== undefined)
      throw new UsageError(
        `${cmd}: --${flag} is for a campaign on this machine; on a portal the board gives the ratio to node-postgres and keeps the documents`,
      );
  }
  const systems = (values.targets ?? "")
    .split(",")
    .map((t) => t.trim())
    .filter(Boolean);
  if (values.all && systems.length) throw new UsageError(`${cmd}: --all runs every registered system: give it without --targets`);
  if (!values.all && !systems.length)
    throw new UsageError(
      `${cmd}: --targets needs one or more of your systems on the portal, e.g. --targets my-system,node-postgres (or --all, for the operator)`,
    );
  const workloads = listFlag<Workload>(cmd, "workload", values.workload, WORKLOADS, "all");
  const distributions = listFlag<Distribution>(cmd, "distribution", values.distribution, DISTRIBUTIONS, "both");
  const input = {
    ...(values.all ? { all: true } : { systems }),
    profile: oneOf(cmd, "--profile", values.profile, PROFILES) ?? "standard",
    trials: intFlag(cmd, "trials", values.trials, 1, MAX_TRIALS) ?? DEFAULT_TRIALS,
    busyRepeats: intFlag(cmd, "busy-repeats", values["busy-repeats"], 0, MAX_TRIALS) ?? BUSY_REPEATS,
    seed: intFlag(cmd, "seed", values.seed, 0, 2 ** 31 - 1) ?? 1,
    ...(values["order-seed"] !== undefined ? { orderSeed: intFlag(cmd, "order-seed", values["order-seed"], 0, 2 ** 31 - 1) } : {}),
    ...(workloads ? { workloads } : {}),
    ...(distributions ? { distributions } : {}),
  };
  const r = remote(urlFlag(cmd, "server", values.server));
  if (!r.token) throw noTokenError(r);
  let created: Created;
  try {
    created = await mutation<Created>(r, "campaigns.create", input);
  } catch (e) {
    if (e instanceof ApiError) throw new ApiError(`${cmd}: refused by ${r.server} (${e.status}):\n${e.message}`, e.status, e.fields);
    throw e;
  }
  if (values.json) {
    process.stdout.write(`${JSON.stringify(created)}\n`);
    return 0;
  }
  const rounds = Math.max(...created.runs.map((x) => x.round));
  process.stdout.write(
    `campaign ${created.campaignId}: ${created.runs.length} runs in ${rounds} round${rounds === 1 ? "" : "s"} (order seed ${created.orderSeed})\n`,
  );
  for (const run of created.runs) process.stdout.write(`  round ${run.round}: ${run.system} ${run.version} ${r.server}/runs/${run.runId}\n`);
  process.stdout.write(`the board ranks the medians as the trials land: ${r.server}/\n`);
  return 0;
}
