/**
 * Run profiles (issue: quick <= 90 s for every cell, standard <= 10 min for
 * checkout + analytics x uniform + zipf, thesis = the 2023 paper's 20 min
 * ramp + 10 min stable load per cell).
 */
import type { KneePlan } from "./knee.ts";

export const PROFILES = ["quick", "standard", "thesis"] as const;
export type Profile = (typeof PROFILES)[number];

export interface ProfileSettings {
  /** products seeded (SPEC 4 default 5000) */
  products: number;
  /** checkouts that build the co-purchase graph before analytics (SPEC 4 default 20000) */
  populate: number;
  /** seconds per ramp step */
  stepS: number;
  knee: Omit<KneePlan, "maxRate"> & { maxRate: number };
  /** seconds of stable load at 80% of the sustainable rate */
  stableS: number;
  /** share of the sustainable rate offered in the stable phase (SPEC 5: 80%) */
  stableShare: number;
  /** products whose frequently-bought-together answer the audit compares */
  coPurchaseSample: number;
  /** checkouts whose user, cart and order the audit reads */
  auditSample: number;
  /** time for off-path co-purchase updates to land before the audit compares them */
  quietMs: number;
}

export const PROFILE_SETTINGS: Record<Profile, ProfileSettings> = {
  quick: {
    products: 1000,
    populate: 1000,
    stepS: 2,
    // coarse steps only: the 90 s budget has no room to refine the knee
    knee: { startRate: 40, factor: 3, maxCoarseSteps: 3, fineSteps: 0, maxRate: 2000 },
    stableS: 3,
    stableShare: 0.8,
    coPurchaseSample: 30,
    auditSample: 200,
    quietMs: 1000,
  },
  standard: {
    products: 5000,
    populate: 20000,
    stepS: 8,
    knee: { startRate: 50, factor: 2, maxCoarseSteps: 7, fineSteps: 2, maxRate: 20000 },
    stableS: 30,
    stableShare: 0.8,
    coPurchaseSample: 200,
    auditSample: 5000,
    quietMs: 2000,
  },
  thesis: {
    products: 5000,
    populate: 20000,
    stepS: 60,
    knee: { startRate: 50, factor: 1.5, maxCoarseSteps: 14, fineSteps: 6, maxRate: 100000 },
    stableS: 600,
    stableShare: 0.8,
    coPurchaseSample: 500,
    auditSample: 20000,
    quietMs: 5000,
  },
};
