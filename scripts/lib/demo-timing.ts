/**
 * Where a demo campaign's time goes: the demo samples each run's progress
 * (its stage, and within the load the experiment's phase: populate, ramp,
 * stable, ...) and charges the time between samples to what the run was
 * doing. From that: when the board had its first provisional row (the first
 * completed trial), when each system's trials were all in (its median and
 * interval ranked), and per system the median trial time and the minutes
 * spent in each activity, summed over its trials.
 */

export interface TrialClock {
  runId: string;
  system: string;
  round: number;
  status: string;
  /** ms since the epoch when the run was seen running first, and ended */
  startedMs?: number;
  endedMs?: number;
  /** ms per activity (stage, or the experiment phase within a stage) */
  spent: Record<string, number>;
}

/** Charges `now - since` to the activity the run was last seen doing, and notes what it does now. */
export function observe(
  c: TrialClock,
  seen: { status: string; activity: string | null },
  now: number,
  last: { activity: string | null; at: number } | undefined,
): { activity: string | null; at: number } {
  if (last?.activity) c.spent[last.activity] = (c.spent[last.activity] ?? 0) + (now - last.at);
  if (seen.status === "running" && c.startedMs === undefined) c.startedMs = now;
  const ended = seen.status !== "queued" && seen.status !== "running";
  if (ended && c.endedMs === undefined) c.endedMs = now;
  c.status = seen.status;
  return { activity: ended ? null : seen.activity, at: now };
}

export interface CampaignTiming {
  /** minutes from the portal coming up to the first completed trial (the first provisional row) */
  provisionalAfterMin: number | null;
  /** per system: minutes from the portal coming up until its last trial ended (its median ranked) */
  rankedAfterMin: Record<string, number | null>;
  /** minutes until every trial ended */
  allAfterMin: number | null;
  systems: Array<{ system: string; trials: number; completed: number; medianTrialMin: number | null; spentMin: Record<string, number> }>;
}

const median = (xs: number[]) => {
  if (!xs.length) return null;
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
const min = (ms: number) => Math.round((ms / 60_000) * 10) / 10;

export function campaignTiming(portalUpMs: number, clocks: readonly TrialClock[]): CampaignTiming {
  const done = (c: TrialClock) => c.endedMs !== undefined;
  const completed = clocks.filter((c) => c.status === "completed" && done(c));
  const firstDone = completed.length ? Math.min(...completed.map((c) => c.endedMs!)) : undefined;
  const systems = [...new Set(clocks.map((c) => c.system))];
  const rankedAfterMin: Record<string, number | null> = {};
  for (const s of systems) {
    const own = clocks.filter((c) => c.system === s);
    rankedAfterMin[s] = own.every(done) ? min(Math.max(...own.map((c) => c.endedMs!)) - portalUpMs) : null;
  }
  return {
    provisionalAfterMin: firstDone === undefined ? null : min(firstDone - portalUpMs),
    rankedAfterMin,
    allAfterMin: clocks.length && clocks.every(done) ? min(Math.max(...clocks.map((c) => c.endedMs!)) - portalUpMs) : null,
    systems: systems.map((system) => {
      const own = clocks.filter((c) => c.system === system);
      const spent: Record<string, number> = {};
      for (const c of own) for (const [k, v] of Object.entries(c.spent)) spent[k] = (spent[k] ?? 0) + v;
      const lengths = own.filter((c) => c.startedMs !== undefined && c.endedMs !== undefined).map((c) => c.endedMs! - c.startedMs!);
      const m = median(lengths);
      return {
        system,
        trials: own.length,
        completed: own.filter((c) => c.status === "completed").length,
        medianTrialMin: m === null ? null : min(m),
        spentMin: Object.fromEntries(Object.entries(spent).map(([k, v]) => [k, min(v)])),
      };
    }),
  };
}

/** The timing as the demo prints it: the milestones, then one line per system. */
export function timingTable(t: CampaignTiming): string {
  const lines = [
    `first provisional row on the board: ${t.provisionalAfterMin === null ? "none (no trial completed)" : `${t.provisionalAfterMin} min after the portal came up`}`,
    `every trial in (the ranked board): ${t.allAfterMin === null ? "not yet" : `${t.allAfterMin} min after the portal came up`}`,
    "",
    "system                trials  completed  median trial  ranked after  time by activity (min, all trials)",
  ];
  for (const s of t.systems) {
    const by = Object.entries(s.spentMin)
      .sort((a, b) => b[1] - a[1])
      .map(([k, v]) => `${k} ${v}`)
      .join(", ");
    const ranked = t.rankedAfterMin[s.system];
    lines.push(
      `${s.system.padEnd(22)}${String(s.trials).padStart(6)}${String(s.completed).padStart(11)}${(s.medianTrialMin === null ? "-" : `${s.medianTrialMin} min`).padStart(14)}${(ranked === null || ranked === undefined ? "-" : `${ranked} min`).padStart(14)}  ${by}`,
    );
  }
  return lines.join("\n");
}
