/** The chart components only (no server-side code): for imports from other client components. */
export { CompareCharts } from "./components/CompareCharts.tsx";
export { RunCharts } from "./components/RunCharts.tsx";
export type * from "./types.ts";
export { MicroCharts } from "./components/MicroCharts.tsx";
export { MicroCompareCharts } from "./components/MicroCompareCharts.tsx";
export { ResilienceCharts } from "./components/ResilienceCharts.tsx";
export type * from "./experiment-types.ts";
