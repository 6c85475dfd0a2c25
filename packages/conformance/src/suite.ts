/** The conformance suite: every group of checks, in the order they run. */
import type { Check } from "./check.ts";
import { analytics } from "./suites/analytics.ts";
import { checkout } from "./suites/checkout.ts";
import { concurrency } from "./suites/concurrency.ts";
import { carts, health, products, users } from "./suites/entities.ts";
import { malformed } from "./suites/malformed.ts";
import { micro } from "./suites/micro.ts";

export interface SuiteOptions {
  /** how long to wait for co-purchase counts after the last checkout (updated off the latency path) */
  quietMs: number;
  /** the target declares `"micro": true` (SPEC 8): add the `micro` group */
  micro?: boolean;
}

export function suite(opts: SuiteOptions): Array<{ group: string; checks: Check[] }> {
  return [
    { group: "health", checks: health },
    { group: "products", checks: products },
    { group: "users", checks: users },
    { group: "carts", checks: carts },
    { group: "checkout", checks: checkout },
    { group: "malformed", checks: malformed() },
    { group: "analytics", checks: analytics(opts) },
    { group: "concurrency", checks: concurrency(opts) },
    ...(opts.micro ? [{ group: "micro", checks: micro() }] : []),
  ];
}
