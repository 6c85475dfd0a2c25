/**
 * Colors: one per system, by its position in the compare selection (Okabe-Ito,
 * readable by people with color vision deficiencies), and one per breakdown
 * component.
 */
export const SYSTEM_COLORS = ["#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#000000", "#999999"] as const;

export function systemColor(index: number): string {
  return SYSTEM_COLORS[index % SYSTEM_COLORS.length]!;
}

export const BREAKDOWN_COLORS: Record<string, string> = {
  gateway: "#7570b3",
  network: "#8c8c8c",
  "function:product": "#1b9e77",
  "function:user": "#d95f02",
  "function:cart": "#e7298a",
  "function:order": "#66a61e",
};
export const BREAKDOWN_FALLBACK_COLORS = ["#a6761d", "#e6ab02", "#666666", "#1f78b4"] as const;
