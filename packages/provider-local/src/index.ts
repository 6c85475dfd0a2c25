export * from "./catalog.ts";
export * from "./run.ts";
