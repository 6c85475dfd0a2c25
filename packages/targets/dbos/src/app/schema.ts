/** This target's tables (schema.sql next to this file), created on every start by @sfbench/shop-pg's schema runner. */
import { readFileSync } from "node:fs";
import type { SchemaScript } from "@sfbench/shop-pg";

export const SCHEMA: SchemaScript = {
  sql: readFileSync(new URL("./schema.sql", import.meta.url), "utf8"),
  /** Arbitrary constant that names "the sfbench dbos application schema" lock. */
  lock: 5_319_004_218,
};
