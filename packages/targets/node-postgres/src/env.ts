/** The environment of main.ts, read once and checked with zod: what every target of @sfbench/shop-pg reads. */
import { parseEnv, ShopEnv } from "@sfbench/shop-pg";

export function readEnv(source: NodeJS.ProcessEnv = process.env): ShopEnv {
  return parseEnv(ShopEnv, source);
}
