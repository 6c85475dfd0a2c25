/**
 * The compare page's URL: `systems=a,b,...` (2 or more slugs, every system of the board if asked); the leaderboard's checkboxes send `s=a&s=b`, which is redirected to it.
 * `tuned=1` charts tuned implementations too (hidden by default, like on the leaderboard).
 */
import { ShowTuned } from "./implementation.ts";

export const MIN_SYSTEMS = 2;

type Search = Record<string, string | string[] | undefined>;

/** `population`: the profile and machine class to compare in (the board's population; env carries the kind). */
export function compareHref(slugs: string[], env?: string, tuned = false, population: { kind?: string; profile?: string; machine?: string } = {}): string {
  const params = new URLSearchParams({ systems: slugs.join(",") });
  if (env) params.set("env", env);
  else if (population.kind) params.set("kind", population.kind);
  if (population.profile) params.set("profile", population.profile);
  if (population.machine) params.set("machine", population.machine);
  if (tuned) params.set("tuned", "1");
  return `/compare?${params.toString().replace(/%2C/g, ",")}`;
}

export function readCompareSlugs(params: Search): { slugs: string[]; problem: string | null; canonical: boolean } {
  const list = (v: string | string[] | undefined) => (Array.isArray(v) ? v : v ? [v] : []);
  const fromS = list(params.s);
  const raw = [...list(params.systems).flatMap((v) => v.split(",")), ...fromS].map((s) => s.trim().toLowerCase()).filter(Boolean);
  const slugs = [...new Set(raw)].filter((s) => /^[a-z0-9][a-z0-9-]{0,62}$/.test(s));
  let problem: string | null = null;
  if (raw.length === 0) problem = `Pick ${MIN_SYSTEMS} or more systems: on the leaderboard, or type their names above.`;
  else if (slugs.length < MIN_SYSTEMS) problem = `Pick at least ${MIN_SYSTEMS} different systems to compare.`;
  return { slugs, problem, canonical: fromS.length > 0 && problem === null };
}

/** Whether the compare page shows tuned implementations (`tuned=1`); a bad value hides them. */
export function readShowTuned(params: Search): boolean {
  const raw = Array.isArray(params.tuned) ? params.tuned[0] : params.tuned;
  const parsed = ShowTuned.safeParse(raw);
  return parsed.success && parsed.data;
}
