/**
 * What the browser bundle gets for `node:crypto` (next.config.ts): @sfbench/core's
 * manifest module imports it for manifestDigest, which only the server calls.
 */
export function createHash(): never {
  throw new Error("node:crypto is not available in the browser (manifestDigest is server-only)");
}
