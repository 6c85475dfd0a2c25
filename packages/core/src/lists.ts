/**
 * The lists of the run contract as plain constants, with no imports: the k6
 * scripts (which cannot import npm packages) read them through a relative
 * import, everything else through contract.ts.
 */

/** SPEC 4: what the load does */
export const WORKLOADS = ["checkout", "analytics", "contention"] as const;
/** SPEC 4: how products are chosen */
export const DISTRIBUTIONS = ["uniform", "zipf"] as const;
/**
 * quick: a smoke test (coarse knee, never ranked); standard: publishable (knee
 * bisected and confirmed to 5%, short steps); thesis: the 2023 paper's long
 * steps (knee to 5%). The
 * numbers of each are in @sfbench/engine PROFILE_SETTINGS.
 */
export const PROFILES = ["quick", "standard", "thesis"] as const;
/**
 * An experiment is a sequence of phases run for every cell (workload x
 * distribution); @sfbench/engine EXPERIMENT_PHASES says which.
 * throughput: the max-throughput ramp, then stable load at 80% of the knee.
 * fault: the ramp, then load at 50% of the knee with one kill -9 in it.
 * scale-up: the ramp on one node, then load at 120% of it with a node added.
 * recovery: no cells; kill and restart after loading N entities, per state size.
 */
export const EXPERIMENTS = ["throughput", "fault", "scale-up", "recovery"] as const;
export const ENVIRONMENT_KINDS = ["local", "kubernetes"] as const;
/** docs/spec.md section 8: the invocation-overhead routes, GET|POST /micro/<route> */
export const MICRO_ROUTES = ["empty", "math", "sleep", "io"] as const;
/** The worker's pipeline, in order (Run.stage holds one of these while the run is active). */
export const PIPELINE_STAGES = ["provision", "verify", "seed", "load", "audit", "store", "teardown"] as const;
