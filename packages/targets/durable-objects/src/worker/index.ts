/**
 * The Worker: the gateway's fetch handler, and the Durable Object classes
 * workerd instantiates (exported from the main module, as workerd requires).
 */
import { handle } from "./gateway/handler.ts";

export { CartObject } from "./app/cart.ts";
export { MicroBigObject, MicroDivideObject, MicroDriverObject, MicroObject, MicroPingObject, MicroPongObject } from "./app/micro.ts";
export { OrderObject } from "./app/order.ts";
export { ProductObject } from "./app/product.ts";
export { UserObject } from "./app/user.ts";

export default { fetch: handle } satisfies ExportedHandler<import("./app/env.ts").Env>;
