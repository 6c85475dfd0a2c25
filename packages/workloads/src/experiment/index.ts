export * from "./knee.ts";
export * from "./profiles.ts";
export * from "./k6-runner.ts";
export * from "./cell.ts";
export * from "./run.ts";
export * from "./environment.ts";
