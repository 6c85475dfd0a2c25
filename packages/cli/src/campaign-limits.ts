/** The campaign defaults and bounds, apart from campaign-run.ts so that the published CLI's --help and `campaign --server` read them without the repository. */

/** How often a busy trial is repeated by default: once, so a campaign takes at most twice its planned time. */
export const BUSY_REPEATS = 1;
/** A bound for --trials: a campaign of more trials than this belongs to several campaigns. */
export const MAX_TRIALS = 100;
/** Three trials: the fewest with which a median differs from a mean and an interval has two degrees of freedom. */
export const DEFAULT_TRIALS = 3;
