/**
 * Business outcomes that are not successes travel as values, not errors:
 * a handler returns `Refusal` and the gateway turns its code into an HTTP
 * status (not-found 404, the checkout conflicts 409). Restate errors are left
 * for failures of the system itself.
 */
import type { CheckoutConflict } from "@sfbench/core";

export type RefusalCode = "not-found" | (typeof CheckoutConflict.options)[number];

export interface Refusal {
  refused: RefusalCode;
  message: string;
}

export const refuse = (refused: RefusalCode, message: string): Refusal => ({ refused, message });

export function isRefusal(value: unknown): value is Refusal {
  return typeof value === "object" && value !== null && "refused" in value;
}

export const notFound = (entity: "product" | "user" | "cart" | "order", id: string): Refusal =>
  refuse("not-found", `${entity} ${JSON.stringify(id)} does not exist`);

/** What handlers that only change state answer. */
export interface Done {
  done: true;
}
export const DONE: Done = { done: true };
