/**
 * A campaign submitted to the portal (`sfbench campaign --server`, the
 * operator's demo): several systems' latest versions measured in randomised
 * interleaved rounds by the worker, every round one trial of each system, so
 * that the board ranks a median of n trials with its interval instead of one
 * run (docs/running.md, "Trials and campaigns").
 */
import { Distribution, DISTRIBUTIONS, MAX_BUSY_REPEATS, Profile, REFERENCE_SYSTEM, Workload, WORKLOADS } from "@sfbench/core/contract";
import { TargetManifest } from "@sfbench/core/manifest";
import { z } from "zod";
import { DEFAULT_PROFILE } from "./submit.ts";

/** Trials per system: three is the fewest with which a median differs from a mean and an interval has two degrees of freedom. */
export const DEFAULT_CAMPAIGN_TRIALS = 3;
/** A campaign of more trials than this belongs to several campaigns (the queue is one machine's). */
export const MAX_CAMPAIGN_TRIALS = 20;
/** Systems in one campaign: each round runs every one of them. */
export const MAX_CAMPAIGN_SYSTEMS = 32;

/** The system every ratio on the board is to; an operator's reference campaign runs it beside every other. */
export const CAMPAIGN_REFERENCE = REFERENCE_SYSTEM;

export const CampaignInput = z
  .object({
    /** the systems' slugs (target.json `name`), each once; each runs its latest submitted version */
    systems: z
      .array(TargetManifest.shape.name)
      .min(1, { message: "name at least one system" })
      .max(MAX_CAMPAIGN_SYSTEMS, { message: `at most ${MAX_CAMPAIGN_SYSTEMS} systems in one campaign` })
      .refine((s) => new Set(s).size === s.length, { message: "each system once" })
      .optional(),
    /**
     * the operator's reference campaign: every registered system, every
     * team's included, in the same rounds as the reference, so that every
     * system has a ratio to it measured in one campaign
     */
    all: z.boolean().default(false),
    trials: z.coerce.number().int().min(1).max(MAX_CAMPAIGN_TRIALS).default(DEFAULT_CAMPAIGN_TRIALS),
    profile: Profile.default(DEFAULT_PROFILE),
    /** which cells every trial runs; every workload and distribution when absent */
    workloads: z.array(Workload).min(1).max(WORKLOADS.length).optional(),
    distributions: z.array(Distribution).min(1).max(DISTRIBUTIONS.length).optional(),
    /** a trial that completed while the machine was busy is run again, at most this many times */
    busyRepeats: z.coerce.number().int().min(0).max(MAX_BUSY_REPEATS).default(1),
    /** seeds the order of the systems in each round (recorded with the runs); from the clock when absent */
    orderSeed: z.coerce
      .number()
      .int()
      .min(0)
      .max(2 ** 31 - 1)
      .optional(),
    /** seeds every trial's load, default 1 */
    seed: z.coerce
      .number()
      .int()
      .min(0)
      .max(2 ** 31 - 1)
      .default(1),
  })
  .superRefine((c, ctx) => {
    if (c.all && c.systems) ctx.addIssue({ code: "custom", path: ["all"], message: "runs every registered system: name no systems with it" });
    if (!c.all && !c.systems) ctx.addIssue({ code: "custom", path: ["systems"], message: "name at least one system (or all, for the operator)" });
  });
export type CampaignInput = z.input<typeof CampaignInput>;
