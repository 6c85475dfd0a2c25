/** The environment of main.ts, read once and checked with zod: what every target of @sfbench/shop-pg reads, and DBOS's pool. */
import { z } from "zod";
import { parseEnv, ShopEnv } from "@sfbench/shop-pg";

const Env = ShopEnv.extend({
  DBOS_POOL_SIZE: z.coerce.number().int().min(1).max(1000).default(20),
});
export type Env = z.infer<typeof Env>;

export function readEnv(source: NodeJS.ProcessEnv = process.env): Env {
  return parseEnv(Env, source);
}
