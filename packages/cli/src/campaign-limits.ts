/** The campaign defaults and bounds, apart from campaign-run.ts so that the published CLI's --help and `campaign --server` read them without the repository. */

/** How often a busy trial is repeated by default: once, so a campaign takes at most twice its planned time. */
export const BUSY_REPEATS = 1;
/** A bound for --trials: a campaign of more trials than this belongs to several campaigns. */
export const MAX_TRIALS = 100;
/** Three trials: the fewest with which a median differs from a mean and an interval has two degrees of freedom. */
export const DEFAULT_TRIALS = 3;

/** A campaign's entry: a bundled target as processes (`NAME`), or from its own image in a container of the run's own network (`NAME@image`). */
export const IMAGE_SUFFIX = "@image";
export const bundledName = (entry: string) => (entry.endsWith(IMAGE_SUFFIX) ? entry.slice(0, -IMAGE_SUFFIX.length) : entry);
