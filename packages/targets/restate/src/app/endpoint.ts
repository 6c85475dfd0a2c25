/** The Restate endpoint: every Virtual Object of the application, served over HTTP/2 to the Restate server. */
import "./polyfill.ts";
import * as restate from "@restatedev/restate-sdk";
import { cart } from "./cart.ts";
import { coPurchase } from "./co-purchase.ts";
import { microObjects } from "./micro.ts";
import { order } from "./order.ts";
import { product } from "./product.ts";
import { user } from "./user.ts";

export const objects = [product, user, cart, order, coPurchase, ...microObjects] as const;

/**
 * A completed invocation's journal is not kept: Restate keeps it a day by
 * default and its configuration guide says to turn that default off in
 * production and keep journals only where someone reads them; nothing here
 * does. A keyed checkout's result stays for its idempotency retention (a
 * day), which caps the journal's and answers a retried checkout.
 */
const SERVICE_OPTIONS = { journalRetention: 0 };

export function createEndpoint() {
  const endpoint = restate.endpoint().defaultServiceOptions(SERVICE_OPTIONS);
  for (const object of objects) endpoint.bind(object);
  return endpoint;
}
