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
