/**
 * sfbench reproduce --campaign DIR [--budget 30m] [--trials N] [--dry-run]:
 * a kept campaign (results/campaigns/<...>/) run again on this machine, as
 * far as a time budget allows (reproduce.ts plans it from the kept trials'
 * times and says so before it starts): the reference and the targets that
 * fit, the kept campaign's cells, profile and load seed, in fresh interleaved
 * rounds. At the end, per target, this machine's ratio to the reference
 * beside the kept one, and whether the kept interval holds here.
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseCampaign, type CampaignDocument } from "@sfbench/core";
import { intFlag, parseFlags, UsageError } from "../args.ts";
import { bundledName, BUSY_REPEATS, DEFAULT_TRIALS, MAX_TRIALS } from "../campaign-limits.ts";
import { needRepository } from "../commands-table.ts";
import { note } from "../progress.ts";
import { compareRatios, comparisonText, parseBudget, planReproduction, planText } from "../reproduce.ts";

/** The live part of the demo and of a reproduction by default: half an hour. */
export const DEFAULT_BUDGET = "30m";

export const reproduceFlags = {
  campaign: { type: "string", value: "DIR", help: "a kept campaign's folder (or its campaign.json), e.g. results/campaigns/20261129-105448-a4a20181" },
  budget: { type: "string", value: "TIME", help: `how long the reproduction may take (30m, 1h, 90s, or minutes), default ${DEFAULT_BUDGET}` },
  trials: { type: "string", value: "N", help: `trials per target, one per round, default ${DEFAULT_TRIALS}` },
  "dry-run": { type: "boolean", help: "print the plan (targets, trials, estimated time) and run nothing" },
  "order-seed": { type: "string", value: "N", help: "seeds the order of the targets in each round, default: from the clock (recorded)" },
  results: { type: "string", value: "DIR", help: "this machine's campaign goes under DIR/campaigns/, default results/" },
  "no-trace": { type: "boolean", help: "do not trace targets that support it" },
} as const;

function readKept(cmd: string, where: string): CampaignDocument {
  const path = resolve(where);
  const file = existsSync(path) && statSync(path).isDirectory() ? join(path, "campaign.json") : path;
  if (!existsSync(file))
    throw new UsageError(`${cmd}: --campaign: no campaign document at ${file} (give a folder under results/campaigns/, or its campaign.json)`);
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(file, "utf8"));
  } catch (e) {
    throw new UsageError(`${cmd}: --campaign: ${file} is not JSON: ${(e as Error).message}`);
  }
  const parsed = parseCampaign(json);
  if (!parsed.ok) throw new UsageError(`${cmd}: --campaign: ${file} is not a campaign document: ${parsed.errors.slice(0, 3).join("; ")}`);
  return parsed.campaign;
}

export async function reproduce(argv: string[]): Promise<number> {
  const cmd = "sfbench reproduce";
  const { values } = parseFlags(cmd, argv, reproduceFlags);
  if (!values.campaign) throw new UsageError(`${cmd}: --campaign DIR is required (a folder under results/campaigns/)`);
  const kept = readKept(cmd, values.campaign);
  const budgetText = values.budget ?? DEFAULT_BUDGET;
  const budgetS = parseBudget(budgetText);
  if (budgetS === undefined || budgetS <= 0)
    throw new UsageError(`${cmd}: --budget must be a time like 30m, 1h30m, 90s or a number of minutes, got "${budgetText}"`);
  const trials = intFlag(cmd, "trials", values.trials, 1, MAX_TRIALS) ?? DEFAULT_TRIALS;
  let plan;
  try {
    plan = planReproduction(kept, { budgetS, trials });
  } catch (e) {
    throw new UsageError(`${cmd}: ${(e as Error).message}`);
  }
  process.stdout.write(planText(kept, plan));
  if (values["dry-run"]) return 0;

  const what = "sfbench reproduce (trials on this machine)";
  const { findTarget } = await needRepository(what, () => import("@sfbench/catalogue"));
  const { k6Path, paths } = await needRepository(what, () => import("@sfbench/services"));
  const { campaign, campaignImages } = await needRepository(what, () => import("../campaign-run.ts"));
  const { campaignTable } = await import("../campaign-table.ts");
  for (const t of plan.chosen) findTarget(bundledName(t));
  // a kept entry NAME@image is that target from its image again
  const images = await campaignImages(plan.chosen);
  const k6 = await k6Path({ onProgress: (m) => note(`k6: ${m}`) });
  const workloads = [...new Set(kept.cells.map((c) => c.workload))];
  const distributions = [...new Set(kept.cells.map((c) => c.distribution))];
  const orderSeed = intFlag(cmd, "order-seed", values["order-seed"], 0, 2 ** 31 - 1) ?? Date.now() % 2 ** 31;
  const outcome = await campaign({
    kind: "campaign",
    targets: plan.chosen,
    ...(Object.keys(images).length ? { images } : {}),
    trials,
    busyRepeats: BUSY_REPEATS,
    orderSeed,
    reference: plan.reference,
    resultsRoot: values.results ?? join(paths.root, "results"),
    run: {
      cmd,
      noTrace: Boolean(values["no-trace"]),
      chosen: { workloads, distributions },
      cells: kept.cells,
      profile: kept.profile,
      experiment: kept.experiment,
      seed: kept.runSeed,
      k6,
    },
  });
  process.stdout.write(campaignTable(outcome.doc) + `\ncampaign: ${outcome.file}\n\n`);
  process.stdout.write(comparisonText(kept, compareRatios(kept, outcome.doc)));
  return outcome.code;
}
