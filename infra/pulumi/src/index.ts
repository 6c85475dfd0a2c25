export * from "./config.ts";
export * from "./machine.ts";
export * from "./program.ts";
export { storageSettings } from "./services.ts";
export { renderRun, KubeObject, typeToKind } from "./render.ts";
