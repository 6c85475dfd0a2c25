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

export function createEndpoint() {
  const endpoint = restate.endpoint();
  for (const object of objects) endpoint.bind(object);
  return endpoint;
}
