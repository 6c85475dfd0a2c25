export { call, eventually, shopper, type Answer } from "./http.ts";
export { globToRegExp, locSide, sourceFiles } from "./sources.ts";
export { startForTest, type TestTarget } from "./started.ts";
export { outputTail, spansInLog, withOutputOnFailure } from "./output.ts";
export { checkoutsAcrossAKill, type Buyer, type FailoverRound } from "./failover.ts";
export { largestMicroRequests, type LargestMicroRequest } from "./micro.ts";
