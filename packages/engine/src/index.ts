/** @sfbench/engine: the experiment engine: phases, the analysis of k6's output, the audit, cost, tracing, trials and campaigns. */
export * from "./analysis/index.ts";
export * from "./experiment/index.ts";
export { audit, snapshotStock, ANOMALY_KINDS, type AnomalyKind, type AuditResult } from "./audit/audit.ts";
export { readAuditRecords, type CheckoutRecord } from "./audit/records.ts";
export { cpuBetween, ProcessSampler, type CpuPoint } from "./cost/sampler.ts";
export { formatCpuList, pinTrees, planSplit, runCpus, targetShare, tasksetPrefix, type CpuSplit } from "./cost/affinity.ts";
export { clockTicks, readStat } from "./cost/proc.ts";
export * from "./trace/index.ts";
export * from "./resilience/index.ts";
export * from "./campaign/index.ts";
