/** How long a new API token works (browser-safe: the tokens page offers these, the server applies them). */

/** Unless its owner chooses otherwise: long enough for a campaign, short enough that a forgotten token dies. */
export const DEFAULT_TOKEN_DAYS = 90;
/** The lifetimes the tokens page offers, in days; null: until revoked. */
export const TOKEN_DAYS = [30, DEFAULT_TOKEN_DAYS, 365, null] as const;
