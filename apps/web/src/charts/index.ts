/**
 * The result charts of the portal (compare and run pages), reproducing the
 * 2023 thesis's figures with Recharts.
 *
 * Server side: buildCompareData / buildRunData (pure; decode the histograms).
 * Client side: CompareCharts / RunCharts ("use client"), fed the plain JSON
 * the builders return.
 *
 * A client component that wants only the components should import
 * "./client.ts", which does not pull in the histogram decoder.
 */
export { buildCompareData, type CompareInput } from "./data/compare.ts";
export { buildRunData } from "./data/run.ts";
export { CompareCharts } from "./components/CompareCharts.tsx";
export { RunCharts } from "./components/RunCharts.tsx";
export type * from "./types.ts";
export { buildMicroCompareData, microRunData } from "./data/micro.ts";
export { resilienceRunData } from "./data/resilience.ts";
export { MicroCharts } from "./components/MicroCharts.tsx";
export { MicroCompareCharts } from "./components/MicroCompareCharts.tsx";
export { ResilienceCharts } from "./components/ResilienceCharts.tsx";
export type * from "./experiment-types.ts";
