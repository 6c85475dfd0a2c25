export * from "./breakdown.ts";
export * from "./collector.ts";
export * from "./kafka.ts";
export * from "./log-tail.ts";
export * from "./session.ts";
export * from "./shipper.ts";
