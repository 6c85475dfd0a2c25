/**
 * bench:overhead's figure: the p50 of a mode over the p50 of "off" in the same
 * round (adjacent phases, the same background load), then the median over
 * rounds; a ratio within one run, so a shared machine's drift cancels out.
 */
export interface PhaseP50 {
  round: number;
  mode: string;
  p50: number;
  p99?: number;
}

export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length === 0 ? NaN : s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/** mode -> median over rounds of p50(mode) / p50(baseline) in that round (or of p99); NaN when no round has both. */
export function roundRatios(phases: readonly PhaseP50[], modes: readonly string[], baseline = "off", field: "p50" | "p99" = "p50"): Record<string, number> {
  const out: Record<string, number> = {};
  for (const mode of modes) {
    const rs: number[] = [];
    for (const p of phases.filter((x) => x.mode === mode)) {
      const base = phases.find((x) => x.round === p.round && x.mode === baseline);
      const a = p[field];
      const b = base?.[field];
      if (a !== undefined && b !== undefined && b > 0) rs.push(a / b);
    }
    out[mode] = median(rs);
  }
  return out;
}
