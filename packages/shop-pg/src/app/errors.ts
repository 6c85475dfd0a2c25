/**
 * Business outcomes that are not successes. The app layer throws them; the
 * gateway turns the code into an HTTP status (not-found 404, the rest 409).
 */
import type { CheckoutConflict } from "@sfbench/core";

export type AppErrorCode = "not-found" | "bad-request" | (typeof CheckoutConflict.options)[number];
export type EntityName = "product" | "user" | "cart" | "order";

export class AppError extends Error {
  constructor(
    readonly code: AppErrorCode,
    message: string,
  ) {
    super(message);
    this.name = "AppError";
  }
}

export const notFound = (entity: EntityName, id: string): AppError => new AppError("not-found", `${entity} ${JSON.stringify(id)} not found`);
