/** The data builders only (server side: they decode HDR histograms with @sfbench/engine). */
export { buildCompareData, type CompareInput } from "./data/compare.ts";
export { buildRunData } from "./data/run.ts";
export type * from "./types.ts";
export { buildMicroCompareData, microRunData } from "./data/micro.ts";
export { resilienceRunData } from "./data/resilience.ts";
export type * from "./experiment-types.ts";
