/** The data builders only (server side: they decode HDR histograms with @sfbench/workloads). */
export { buildCompareData, type CompareInput } from "./data/compare.ts";
export { buildRunData } from "./data/run.ts";
export type * from "./types.ts";
