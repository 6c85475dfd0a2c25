import { DISTRIBUTIONS } from "@sfbench/core/contract";

/** The headline number of a system (badge, system page): the checkout sustainable rate, in DISTRIBUTIONS order (uniform first). */
export const HEADLINE = { workload: "checkout", distributions: DISTRIBUTIONS } as const;
