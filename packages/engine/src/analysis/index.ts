/** Analysis of raw k6 output: streaming CSV reader, HDR latency histograms, aggregation, SPEC 5 metrics. */
export * from "./k6-csv.ts";
export * from "./histogram.ts";
export * from "./outcome.ts";
export * from "./series.ts";
export * from "./aggregate.ts";
export * from "./metrics.ts";
export * from "./result-parts.ts";
