/** Resilience and scalability measurements: pure analyses of a phase's series, and recovery with real processes. */
export { analyzeFault, type FailedRequest, type FaultAnalysis, type FaultAnalysisInput } from "./fault.ts";
export { analyzeScaleUp, type ScaleUpInput } from "./scale-up.ts";
export { scalabilityPoints, type MeasuredNodeCount } from "./scalability.ts";
export { measureRecovery, readBack, RecoveryError, seedState, type ReadBack, type RecoveryInput, type SeededState, type SeedStateOptions } from "./recovery.ts";
export { failuresFromK6Csv, onSeriesClock, seriesOriginMs } from "./k6-failures.ts";
export { injectFault, planFault, type FaultPlan, type InjectFaultInput } from "./inject.ts";
