export * from "./run.ts";
export * from "./build.ts";
export * from "./storage.ts";
export * from "./nodes.ts";
export { startBalancer, type Balancer } from "./balancer.ts";
export * from "./control.ts";
export { localTargetProvider } from "./provider.ts";
export { copyTree, restoreTarget, snapshotTarget, targetHome, treeBytes } from "./snapshot.ts";
