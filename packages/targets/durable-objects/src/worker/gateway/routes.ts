/**
 * The routes of SPEC 2: validate, call the entity's Durable Object over RPC,
 * answer JSON. Each route names the entity and operation of its gateway span.
 */
import { AddCreditsBody, AddToCartBody, CheckoutBody, FreqItemsQuery, ProductCreateBody, ProductPatchBody, UserCreateBody } from "@sfbench/core/api";
import { settle } from "../app/checkout.ts";
import type { Env } from "../app/env.ts";
import type { Entity, TraceContext } from "../app/trace.ts";
import { empty, json, notFound, parse, pathId, readJson, unwrap } from "./http.ts";

export interface RouteContext {
  request: Request;
  env: Env;
  exec: ExecutionContext;
  /** the raw `:id` segments of the path, in order */
  params: string[];
  /** the gateway span's context, when tracing and the request is sampled */
  trace: TraceContext | undefined;
  /** sets the key of the gateway span */
  setKey(key: string): void;
}

export interface Route {
  method: "GET" | "POST" | "PATCH";
  /** path segments; ":id" matches one segment */
  path: string[];
  entity: Entity;
  op: string;
  handle(c: RouteContext): Promise<Response> | Response;
}

/** Visits a freq-items query may make before it is refused (top=100, depth=20 on a dense graph). */
const MAX_VISITS = 100_000;

const id = (c: RouteContext, i = 0) => pathId(c.params[i]!);

export const routes: Route[] = [
  {
    method: "POST",
    path: ["products"],
    entity: "product",
    op: "createProduct",
    handle: async (c) => {
      const { price = 0, stock = 0 } = parse(ProductCreateBody, await readJson(c.request), {});
      const key = crypto.randomUUID();
      c.setKey(key);
      await c.env.PRODUCTS.getByName(key).create(key, price, stock, c.trace);
      return json(key);
    },
  },
  {
    method: "PATCH",
    path: ["products", ":id"],
    entity: "product",
    op: "upsertProduct",
    handle: async (c) => {
      const key = id(c);
      const { price, stock = 0 } = parse(ProductPatchBody, await readJson(c.request), {});
      await c.env.PRODUCTS.getByName(key).upsert(key, price, stock, c.trace);
      return json(key);
    },
  },
  {
    method: "GET",
    path: ["products", ":id"],
    entity: "product",
    op: "getProduct",
    handle: async (c) => {
      const key = id(c);
      const product = (await c.env.PRODUCTS.getByName(key).read(key, c.trace)) ?? notFound(`product ${key}`);
      return json({ id: key, price: product.price, stock: product.stock });
    },
  },
  {
    method: "GET",
    path: ["products", ":id", "freq-items"],
    entity: "product",
    op: "freqItems",
    handle: async (c) => {
      const key = id(c);
      const query = Object.fromEntries(new URL(c.request.url).searchParams);
      const { top, depth } = parse(FreqItemsQuery, query, {});
      const found = unwrap(await c.env.PRODUCTS.getByName(key).visit(key, top, depth, [key], MAX_VISITS, c.trace));
      return json(found);
    },
  },
  {
    method: "POST",
    path: ["users"],
    entity: "user",
    op: "createUser",
    handle: async (c) => {
      const { credits = 0 } = parse(UserCreateBody, await readJson(c.request), {});
      const key = crypto.randomUUID();
      c.setKey(key);
      await c.env.USERS.getByName(key).create(key, credits, c.trace);
      return json(key);
    },
  },
  {
    method: "GET",
    path: ["users", ":id"],
    entity: "user",
    op: "getUser",
    handle: async (c) => {
      const key = id(c);
      const user = (await c.env.USERS.getByName(key).read(key, c.trace)) ?? notFound(`user ${key}`);
      return json({ id: key, credits: user.credits });
    },
  },
  {
    method: "PATCH",
    path: ["users", ":id", "credits", "add"],
    entity: "user",
    op: "addCredits",
    handle: async (c) => {
      const key = id(c);
      const { credits } = parse(AddCreditsBody, await readJson(c.request));
      if (!(await c.env.USERS.getByName(key).addCredits(key, credits, c.trace))) notFound(`user ${key}`);
      return empty();
    },
  },
  {
    method: "POST",
    path: ["shopping-carts"],
    entity: "cart",
    op: "createCart",
    handle: async (c) => {
      const key = crypto.randomUUID();
      c.setKey(key);
      await c.env.CARTS.getByName(key).create(key, c.trace);
      return json(key);
    },
  },
  {
    method: "GET",
    path: ["shopping-carts", ":id"],
    entity: "cart",
    op: "getCart",
    handle: async (c) => {
      const key = id(c);
      const cart = (await c.env.CARTS.getByName(key).read(key, c.trace)) ?? notFound(`cart ${key}`);
      return json({ id: key, items: cart.items.map(([productId, amount]) => ({ productId, amount })), checkedOut: cart.checkedOut });
    },
  },
  {
    method: "POST",
    path: ["shopping-carts", ":id", "products"],
    entity: "cart",
    op: "addToCart",
    handle: async (c) => {
      const key = id(c);
      const { productId, amount } = parse(AddToCartBody, await readJson(c.request));
      unwrap(await c.env.CARTS.getByName(key).add(key, productId, amount, c.trace));
      return empty();
    },
  },
  {
    method: "POST",
    path: ["orders", "checkout"],
    entity: "order",
    op: "checkout",
    handle: async (c) => {
      const { cartId, userId } = parse(CheckoutBody, await readJson(c.request));
      c.setKey(cartId);
      const done = unwrap(await c.env.CARTS.getByName(cartId).checkout(cartId, userId, c.trace));
      // step 6 off the latency path: the answer goes out now, the co-purchase counts follow
      // (a settle that fails is finished by the cart when it is next loaded)
      c.exec.waitUntil(
        settle(c.env, done)
          .then(() => c.env.CARTS.getByName(cartId).settled(done.orderId))
          .catch((e: Error) => console.error(`settling order ${done.orderId} failed: ${e.message}`)),
      );
      return json({ orderId: done.orderId, total: done.total });
    },
  },
  {
    method: "GET",
    path: ["orders", ":id"],
    entity: "order",
    op: "getOrder",
    handle: async (c) => {
      const key = id(c);
      const order = (await c.env.ORDERS.getByName(key).read(key, c.trace)) ?? notFound(`order ${key}`);
      return json(order);
    },
  },
];

/** The route for a method and path, with its raw `:id` segments; "no-route" when the path is unknown. */
export function match(method: string, segments: string[]): { route: Route; params: string[] } | undefined {
  for (const route of routes) {
    if (route.method !== method || route.path.length !== segments.length) continue;
    const params: string[] = [];
    if (route.path.every((p, i) => (p === ":id" ? (params.push(segments[i]!), true) : p === segments[i]))) return { route, params };
  }
  return undefined;
}
