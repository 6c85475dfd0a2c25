/**
 * The routes of SPEC 2: validate, call the shop, answer JSON. Each route's
 * `config` names the entity and operation of its gateway span.
 */
import type { FastifyInstance, FastifyReply } from "fastify";
import { AddCreditsBody, AddToCartBody, CheckoutBody, FreqItemsQuery, ProductCreateBody, ProductPatchBody, UserCreateBody } from "@sfbench/core";
import type { Shop } from "../app/api.ts";
import { sendError } from "./errors.ts";
import { traceOf } from "./tracing.ts";
import { parseId, parseInput } from "./validate.ts";

function json(reply: FastifyReply, value: unknown): FastifyReply {
  return reply.type("application/json; charset=utf-8").send(JSON.stringify(value));
}

/** `{id}` of the route's path. */
const pathId = (params: unknown) => parseId((params as { id?: unknown }).id);

export function registerRoutes(app: FastifyInstance, shop: Shop, isReady: () => boolean, startingWhat: string): void {
  app.get("/health", async (_request, reply) => (isReady() ? json(reply, { status: "ok" }) : sendError(reply, 503, "starting", startingWhat)));

  app.post("/products", { config: { entity: "product", op: "createProduct" } }, async (request, reply) => {
    const body = parseInput(ProductCreateBody, request.body, {});
    const id = await shop.createProduct(body, traceOf(request));
    traceOf(request, id);
    return json(reply, id);
  });

  app.patch("/products/:id", { config: { entity: "product", op: "upsertProduct" } }, async (request, reply) => {
    const id = pathId(request.params);
    const body = parseInput(ProductPatchBody, request.body, {});
    return json(reply, await shop.upsertProduct(id, body, traceOf(request)));
  });

  app.get("/products/:id", { config: { entity: "product", op: "getProduct" } }, async (request, reply) =>
    json(reply, await shop.getProduct(pathId(request.params), traceOf(request))),
  );

  app.get("/products/:id/freq-items", { config: { entity: "product", op: "freqItems" } }, async (request, reply) => {
    const id = pathId(request.params);
    const { top, depth } = parseInput(FreqItemsQuery, request.query, {});
    return json(reply, await shop.freqItems(id, top, depth, traceOf(request)));
  });

  app.post("/users", { config: { entity: "user", op: "createUser" } }, async (request, reply) => {
    const { credits } = parseInput(UserCreateBody, request.body, {});
    const id = await shop.createUser(credits, traceOf(request));
    traceOf(request, id);
    return json(reply, id);
  });

  app.get("/users/:id", { config: { entity: "user", op: "getUser" } }, async (request, reply) =>
    json(reply, await shop.getUser(pathId(request.params), traceOf(request))),
  );

  app.patch("/users/:id/credits/add", { config: { entity: "user", op: "addCredits" } }, async (request, reply) => {
    const id = pathId(request.params);
    const { credits } = parseInput(AddCreditsBody, request.body);
    await shop.addCredits(id, credits, traceOf(request));
    return reply.code(200).send();
  });

  app.post("/shopping-carts", { config: { entity: "cart", op: "createCart" } }, async (request, reply) => {
    const id = await shop.createCart(traceOf(request));
    traceOf(request, id);
    return json(reply, id);
  });

  app.get("/shopping-carts/:id", { config: { entity: "cart", op: "getCart" } }, async (request, reply) =>
    json(reply, await shop.getCart(pathId(request.params), traceOf(request))),
  );

  app.post("/shopping-carts/:id/products", { config: { entity: "cart", op: "addToCart" } }, async (request, reply) => {
    const id = pathId(request.params);
    const { productId, amount } = parseInput(AddToCartBody, request.body);
    await shop.addToCart(id, productId, amount, traceOf(request));
    return reply.code(200).send();
  });

  app.post("/orders/checkout", { config: { entity: "order", op: "checkout" } }, async (request, reply) => {
    const { cartId, userId } = parseInput(CheckoutBody, request.body);
    return json(reply, await shop.checkout(cartId, userId, traceOf(request, cartId)));
  });

  app.get("/orders/:id", { config: { entity: "order", op: "getOrder" } }, async (request, reply) =>
    json(reply, await shop.getOrder(pathId(request.params), traceOf(request))),
  );
}
