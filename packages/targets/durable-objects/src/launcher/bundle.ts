/**
 * The Worker's modules for workerd: src/worker/index.ts and what it imports
 * (@sfbench/core's schemas, zod) bundled by esbuild into one ES module, in
 * memory, at every start (about a second; nothing is written to disk).
 */
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

export const workerEntry = fileURLToPath(new URL("../worker/index.ts", import.meta.url));

export async function bundleWorker(entry = workerEntry): Promise<string> {
  const result = await build({
    entryPoints: [entry],
    bundle: true,
    format: "esm",
    platform: "neutral",
    target: "es2022",
    mainFields: ["module", "main"],
    conditions: ["workerd", "worker", "import"],
    external: ["cloudflare:*"],
    write: false,
    logLevel: "silent",
    legalComments: "none",
  });
  return result.outputFiles[0]!.text;
}
