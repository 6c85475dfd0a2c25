/** @sfbench/workloads: the k6 scripts (k6/), the env contract they read and the seeded distributions they share with Node. */
import { fileURLToPath } from "node:url";
import type { K6Script } from "@sfbench/core";

/** the folder of the k6 scripts: k6 runs them from here, as TypeScript, with their relative imports */
export const K6_DIR = fileURLToPath(new URL("../k6/", import.meta.url));
/** a script of K6_DIR by its file's stem */
export type Script = K6Script;

export * from "./distributions.ts";
export * from "./random.ts";
export * from "./workload-env.ts";
