export * from "./api.ts";
export * from "./manifest.ts";
export * from "./span.ts";
export * from "./result.ts";
export * from "./contract.ts";
export * from "./micro.ts";
export * from "./resilience.ts";
export * from "./verdict.ts";
