export * from "./knee.ts";
export * from "./profiles.ts";
export * from "./k6-runner.ts";
export * from "./phase.ts";
export * from "./experiments.ts";
export { runCell } from "./cell.ts";
export * from "./run.ts";
export * from "./environment.ts";
export { maxVus, preVus } from "./load-step.ts";
