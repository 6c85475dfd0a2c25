/** The headline number of a system (badge, system page): the checkout sustainable rate, uniform keys first, else zipf. */
export const HEADLINE = { workload: "checkout", distributions: ["uniform", "zipf"] } as const;
