/**
 * The routes of SPEC 2: validate, call the Virtual Object's handler through
 * Restate's ingress, answer JSON. Each route's `config` names the entity and
 * operation of its gateway span.
 */
import { randomUUID } from "node:crypto";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { AddCreditsBody, AddToCartBody, CheckoutBody, FreqItemsQuery, ProductCreateBody, ProductPatchBody, UserCreateBody } from "@sfbench/core";
import type { CartView } from "../app/cart.ts";
import type { CheckoutAnswer } from "../app/checkout.ts";
import type { Visit } from "../app/co-purchase.ts";
import type { OrderState } from "../app/order.ts";
import { isRefusal, type Done, type Refusal } from "../app/outcome.ts";
import type { ProductState } from "../app/product.ts";
import type { UserState } from "../app/user.ts";
import { BadRequest, Refused } from "./errors.ts";
import type { Ingress, ObjectName } from "./ingress.ts";
import { spanOf } from "./tracing.ts";
import { parseId, parseInput } from "./validate.ts";

function json(reply: FastifyReply, value: unknown): FastifyReply {
  return reply.type("application/json; charset=utf-8").send(JSON.stringify(value));
}

/**
 * Every visit of SPEC 2.2 is one Restate invocation; a query whose visit tree
 * could hold more (1 + n + ... + n^(d-1)) is refused with 400 before it starts.
 */
export const MAX_FREQ_VISITS = 100_000;

export function visitBound(top: number, depth: number): number {
  let bound = 0;
  let level = 1;
  for (let d = 0; d < depth && bound <= MAX_FREQ_VISITS; d++) {
    bound += level;
    level *= top;
  }
  return bound;
}

/** `{id}` of the route's path. */
const pathId = (params: unknown) => parseId((params as { id?: unknown }).id);

/** A handler's answer, or its refusal thrown for the error handler. */
function accepted<T>(answer: T | Refusal): T {
  if (isRefusal(answer)) throw new Refused(answer);
  return answer;
}

export function registerRoutes(app: FastifyInstance, ingress: Ingress): void {
  const call = async <T>(request: FastifyRequest, object: ObjectName, key: string, handler: string, input?: unknown, idempotencyKey?: string) => {
    const span = spanOf(request);
    return accepted(
      await ingress.call<T | Refusal>(object, key, handler, input, {
        ...(span ? { span } : {}),
        ...(idempotencyKey ? { idempotencyKey } : {}),
      }),
    );
  };

  app.get("/health", async (_request, reply) => json(reply, { status: "ok" }));

  app.post("/products", { config: { entity: "product", op: "createProduct" } }, async (request, reply) => {
    const body = parseInput(ProductCreateBody, request.body, {});
    const id = randomUUID();
    spanOf(request, id);
    await call<Done>(request, "Product", id, "create", body);
    return json(reply, id);
  });

  app.patch("/products/:id", { config: { entity: "product", op: "upsertProduct" } }, async (request, reply) => {
    const id = pathId(request.params);
    const body = parseInput(ProductPatchBody, request.body, {});
    await call<Done>(request, "Product", id, "upsert", body);
    return json(reply, id);
  });

  app.get("/products/:id", { config: { entity: "product", op: "getProduct" } }, async (request, reply) => {
    const id = pathId(request.params);
    const product = await call<ProductState>(request, "Product", id, "get");
    return json(reply, { id, price: product.price, stock: product.stock });
  });

  app.get("/products/:id/freq-items", { config: { entity: "product", op: "freqItems" } }, async (request, reply) => {
    const id = pathId(request.params);
    const { top, depth } = parseInput(FreqItemsQuery, request.query, {});
    if (visitBound(top, depth) > MAX_FREQ_VISITS) {
      throw new BadRequest(
        `top=${top}&depth=${depth}: the visit tree could hold more than ${MAX_FREQ_VISITS} products (1 + top + ... + top^(depth-1)); lower top or depth`,
      );
    }
    const visit: Visit = { top, depth, exclude: [id] };
    // Both at once: the product's existence (404) and the traversal from its co-purchase object.
    const [, items] = await Promise.all([call<ProductState>(request, "Product", id, "get"), call<string[]>(request, "CoPurchase", id, "visit", visit)]);
    return json(reply, items);
  });

  app.post("/users", { config: { entity: "user", op: "createUser" } }, async (request, reply) => {
    const { credits } = parseInput(UserCreateBody, request.body, {});
    const id = randomUUID();
    spanOf(request, id);
    await call<Done>(request, "User", id, "create", credits ?? 0);
    return json(reply, id);
  });

  app.get("/users/:id", { config: { entity: "user", op: "getUser" } }, async (request, reply) => {
    const id = pathId(request.params);
    const user = await call<UserState>(request, "User", id, "get");
    return json(reply, { id, credits: user.credits });
  });

  app.patch("/users/:id/credits/add", { config: { entity: "user", op: "addCredits" } }, async (request, reply) => {
    const id = pathId(request.params);
    const { credits } = parseInput(AddCreditsBody, request.body);
    await call<Done>(request, "User", id, "addCredits", credits);
    return reply.code(200).send();
  });

  app.post("/shopping-carts", { config: { entity: "cart", op: "createCart" } }, async (request, reply) => {
    const id = randomUUID();
    spanOf(request, id);
    await call<Done>(request, "Cart", id, "create");
    return json(reply, id);
  });

  app.get("/shopping-carts/:id", { config: { entity: "cart", op: "getCart" } }, async (request, reply) => {
    const id = pathId(request.params);
    const cart = await call<CartView>(request, "Cart", id, "get");
    return json(reply, { id, items: cart.items, checkedOut: cart.checkedOut });
  });

  app.post("/shopping-carts/:id/products", { config: { entity: "cart", op: "addToCart" } }, async (request, reply) => {
    const id = pathId(request.params);
    const item = parseInput(AddToCartBody, request.body);
    await call<Done>(request, "Cart", id, "addItem", { productId: item.productId, amount: item.amount });
    return reply.code(200).send();
  });

  app.post("/orders/checkout", { config: { entity: "order", op: "checkout" } }, async (request, reply) => {
    const { cartId, userId } = parseInput(CheckoutBody, request.body);
    spanOf(request, cartId);
    // The order id is the checkout's id: Restate's idempotency key for this invocation.
    const orderId = randomUUID();
    const answer = await call<Exclude<CheckoutAnswer, Refusal>>(request, "Cart", cartId, "checkout", { userId, orderId }, orderId);
    return json(reply, { orderId: answer.orderId, total: answer.total });
  });

  app.get("/orders/:id", { config: { entity: "order", op: "getOrder" } }, async (request, reply) => {
    const id = pathId(request.params);
    const order = await call<OrderState>(request, "Order", id, "get");
    return json(reply, {
      id,
      cartId: order.cartId,
      userId: order.userId,
      status: order.status,
      total: order.total,
      ...(order.failure === undefined ? {} : { failure: order.failure }),
    });
  });
}
