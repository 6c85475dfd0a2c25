/**
 * sfbench campaign --targets a,b,c [--workload ...] [--distribution ...] [--profile ...] [--trials N] [--reference NAME]:
 * several bundled targets' cells in randomised interleaved rounds, every
 * trial a fresh run with its own result document, and a campaign document
 * with the median, its interval and ratio to the reference per target and
 * cell (campaign-run.ts).
 *
 * With --server, the same campaign is queued on a portal instead
 * (campaign-remote.ts): the systems are the account's own, registered there
 * (`sfbench submit --register-only`), and the portal's worker runs the
 * rounds; the board ranks their medians as trials land.
 */
import { join } from "node:path";
import { cellsOf, DISTRIBUTION_CHOICES, PROFILES, WORKLOAD_CHOICES, parametersOfChoice, type Profile } from "@sfbench/core/contract";
import { intFlag, oneOf, parseFlags, UsageError } from "../args.ts";
import { BUSY_REPEATS, bundledName, DEFAULT_TRIALS, MAX_TRIALS } from "../campaign-limits.ts";
import { needRepository } from "../commands-table.ts";
import { campaignOnServer } from "../campaign-remote.ts";
import { commandSignal } from "../interrupt.ts";
import { note } from "../progress.ts";

export const campaignFlags = {
  targets: {
    type: "string",
    value: "A,B,...",
    help: "the bundled targets, each once (started fresh for every trial); NAME@image runs one from its own image in a container (built first)",
  },
  workload: { type: "string", value: WORKLOAD_CHOICES.join("|"), help: "default checkout" },
  distribution: { type: "string", value: DISTRIBUTION_CHOICES.join("|"), help: "default uniform" },
  profile: { type: "string", value: PROFILES.join("|"), help: "default standard" },
  trials: { type: "string", value: "N", help: `trials per target, one per round, default ${DEFAULT_TRIALS}` },
  reference: { type: "string", value: "NAME", help: "one of --targets: every other target's knee is also given as a ratio to it in the same round" },
  seed: { type: "string", value: "N", help: "seeds every run's load, default 1" },
  "order-seed": { type: "string", value: "N", help: "seeds the order of the targets in each round, default: from the clock (recorded)" },
  "busy-repeats": { type: "string", value: "N", help: `repeat a trial taken while the machine was busy at most N times, default ${BUSY_REPEATS}` },
  results: { type: "string", value: "DIR", help: "the campaign's folder goes under DIR/campaigns/, default results/" },
  "no-trace": { type: "boolean", help: "do not trace targets that support it" },
  "seed-each-trial": {
    type: "boolean",
    help: "every trial seeds and populates its own target, instead of starting from a copy of the populated state built once per target",
  },
  server: {
    type: "string",
    value: "URL",
    help: "queue the campaign on this portal instead (its worker runs it); --targets are your systems there, --workload may list several (checkout,analytics)",
  },
  json: { type: "boolean", help: "with --server: print the queued campaign (its id and runs) as JSON" },
  all: {
    type: "boolean",
    help: "with --server, for the portal's operator: every registered system, teams' included, in the same rounds as node-postgres (the reference campaign)",
  },
} as const;

export async function campaign(argv: string[]): Promise<number> {
  const cmd = "sfbench campaign";
  const { values } = parseFlags(cmd, argv, campaignFlags);
  if (values.server !== undefined) return campaignOnServer(cmd, values);
  if (values.json) throw new UsageError(`${cmd}: --json goes with --server (a local campaign prints its table and writes campaign.json)`);
  if (values.all) throw new UsageError(`${cmd}: --all goes with --server (the operator's campaign of every system registered on a portal)`);
  const { findTarget } = await needRepository("sfbench campaign (trials on this machine)", () => import("@sfbench/catalogue"));
  const { k6Path, paths } = await needRepository("sfbench campaign (trials on this machine)", () => import("@sfbench/services"));
  const { campaignImages, runCampaign } = await needRepository("sfbench campaign (trials on this machine)", () => import("../campaign-run.ts"));
  const targets = (values.targets ?? "")
    .split(",")
    .map((t) => t.trim())
    .filter(Boolean);
  if (!targets.length) throw new UsageError(`${cmd}: --targets needs one or more bundled targets, e.g. --targets node-postgres,restate`);
  if (new Set(targets).size !== targets.length) throw new UsageError(`${cmd}: --targets: each target once, got ${values.targets}`);
  for (const t of targets) findTarget(bundledName(t));
  if (values.reference !== undefined && !targets.includes(values.reference))
    throw new UsageError(`${cmd}: --reference must be one of --targets (${targets.join(", ")}), got "${values.reference}"`);
  const workload = oneOf(cmd, "--workload", values.workload, WORKLOAD_CHOICES) ?? "checkout";
  const distribution = oneOf(cmd, "--distribution", values.distribution, DISTRIBUTION_CHOICES) ?? "uniform";
  const profile: Profile = oneOf(cmd, "--profile", values.profile, PROFILES) ?? "standard";
  const trials = intFlag(cmd, "trials", values.trials, 1, MAX_TRIALS) ?? DEFAULT_TRIALS;
  const busyRepeats = intFlag(cmd, "busy-repeats", values["busy-repeats"], 0, MAX_TRIALS) ?? BUSY_REPEATS;
  const seed = intFlag(cmd, "seed", values.seed, 0, 2 ** 31 - 1) ?? 1;
  const orderSeed = intFlag(cmd, "order-seed", values["order-seed"], 0, 2 ** 31 - 1) ?? Date.now() % 2 ** 31;
  const chosen = parametersOfChoice(workload, distribution);
  // a bundled target from its own image (`NAME@image`)
  const images = await campaignImages(targets);
  const k6 = await k6Path({ onProgress: (m) => note(`k6: ${m}`) });
  return runCampaign({
    kind: "campaign",
    targets,
    trials,
    busyRepeats,
    orderSeed,
    ...(values.reference ? { reference: values.reference } : {}),
    ...(Object.keys(images).length ? { images } : {}),
    ...(values["seed-each-trial"] ? { seedEachTrial: true } : {}),
    resultsRoot: values.results ?? join(paths.root, "results"),
    run: { cmd, noTrace: Boolean(values["no-trace"]), chosen, cells: cellsOf(chosen), profile, experiment: "throughput", seed, k6, signal: commandSignal() },
  });
}
