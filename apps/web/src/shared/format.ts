/** Number formatting shared by the pages: "—" for what was not measured. */

const DASH = "—";

export function fmtRate(value: number | null | undefined): string {
  if (value === null || value === undefined) return DASH;
  return `${Math.round(value).toLocaleString("en-US")}`;
}

export function fmtMs(value: number | null | undefined): string {
  if (value === null || value === undefined) return DASH;
  return value >= 100 ? `${Math.round(value)} ms` : `${value.toFixed(value >= 10 ? 1 : 2)} ms`;
}

export function fmtPercent(share: number | null | undefined): string {
  if (share === null || share === undefined) return DASH;
  return `${(share * 100).toFixed(share < 0.01 ? 2 : 1)}%`;
}

export function fmtNumber(value: number | null | undefined, digits = 1): string {
  if (value === null || value === undefined) return DASH;
  return value.toLocaleString("en-US", { maximumFractionDigits: digits });
}

export function fmtDate(value: Date | string | null | undefined): string {
  if (!value) return DASH;
  return new Date(value).toISOString().replace("T", " ").slice(0, 16) + " UTC";
}

export function fmtEnvironment(kind: string, nodes: number): string {
  return `${kind}, ${nodes} node${nodes === 1 ? "" : "s"}`;
}

/** What a workload's rates count (SPEC 5): checkouts per second, or queries per second for analytics. */
export function rateUnit(workload: string): "checkouts/s" | "queries/s" {
  return workload === "analytics" ? "queries/s" : "checkouts/s";
}

/** A rate with what it counts: "412 checkouts/s". */
export function fmtRateOf(value: number | null | undefined, workload: string): string {
  return value === null || value === undefined ? DASH : `${fmtRate(value)} ${rateUnit(workload)}`;
}

/** The knee's resolution, the relative gap up to the first unsustainable step: "+9.5%". */
export function fmtResolution(resolution: number | null | undefined): string {
  if (resolution === null || resolution === undefined) return DASH;
  return `+${(resolution * 100).toFixed(resolution < 0.1 ? 1 : 0)}%`;
}
