/**
 * The HTTP side of the gateway: parsing and validation (SPEC 2: every bad
 * input is a 400 with a JSON error body naming the field), the routes, and
 * the translation of each route into one request to the StateFun job.
 */
import { randomUUID } from "node:crypto";
import Fastify, { LogController, type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest } from "fastify";
import {
  AddCreditsBody,
  AddToCartBody,
  CheckoutBody,
  describeZodError,
  FreqItemsQuery,
  Id,
  ProductCreateBody,
  ProductPatchBody,
  UserCreateBody,
} from "@sfbench/core";
import { IngressFailed, NoAnswer, type Answer, type Request } from "./bridge.ts";
import { MicroBadRequest, registerMicroRoutes } from "./micro.ts";
import { installTracing, traceOf, type RouteTrace, type SpanWriter } from "./spans.ts";

export type LogLevel = "fatal" | "error" | "warn" | "info" | "debug" | "trace" | "silent";

export interface HttpOptions {
  /** sends one request to the job and resolves with its answer; `extraMs` lengthens its no-answer deadline */
  send(request: Request, extraMs?: number): Promise<Answer>;
  /** false until the job answered a ping: every route but /health and /stats answers 503 */
  isReady(): boolean;
  /** the gateway's counters, served on GET /stats */
  stats(): object;
  spans?: SpanWriter | undefined;
  logLevel: LogLevel;
}

/** Invalid input found by the gateway: 400 bad-request. */
class BadRequest extends Error {}

function sendError(reply: FastifyReply, status: number, error: string, message: string): FastifyReply {
  return reply.code(status).type("application/json; charset=utf-8").send(JSON.stringify({ error, message }));
}

const CODE_BY_STATUS: Record<number, string> = { 404: "not-found", 413: "payload-too-large", 415: "unsupported-media-type" };

function errorHandler(err: FastifyError | Error, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  if (err instanceof BadRequest || err instanceof MicroBadRequest) return sendError(reply, 400, "bad-request", err.message);
  // the job did not answer in time: named, so a run counts these apart from other errors
  if (err instanceof NoAnswer) return sendError(reply, 504, "no-answer", err.message);
  if (err instanceof IngressFailed) return sendError(reply, 503, "ingress-failed", err.message);
  const status = "statusCode" in err && typeof err.statusCode === "number" ? err.statusCode : 500;
  if (status >= 400 && status < 500) return sendError(reply, status, CODE_BY_STATUS[status] ?? "bad-request", err.message);
  request.log.error({ err }, "request failed");
  return sendError(reply, 500, "internal", err.message);
}

interface Schema<T> {
  safeParse(value: unknown): { success: true; data: T } | { success: false; error: Parameters<typeof describeZodError>[0] };
}

/** A body (or query); `missing` is what an absent body means ({} where every field is optional). */
function parseInput<T>(schema: Schema<T>, value: unknown, missing?: object): T {
  const result = schema.safeParse(value === undefined ? missing : value);
  if (!result.success) throw new BadRequest(describeZodError(result.error));
  return result.data;
}

/** The `{id}` of a route: 1-128 characters, no NUL. */
function pathId(request: FastifyRequest): string {
  const result = Id.safeParse((request.params as { id?: unknown }).id);
  if (!result.success) throw new BadRequest(`id: ${result.error.issues.map((i) => i.message).join("; ")}`);
  return result.data;
}

function json(reply: FastifyReply, value: unknown): FastifyReply {
  return reply.type("application/json; charset=utf-8").send(JSON.stringify(value));
}

/** The job's answer as the HTTP answer: its status and its JSON body (none for a 200 without one). */
function relay(reply: FastifyReply, answer: Answer): FastifyReply {
  reply.code(answer.status);
  if (answer.body == null) return reply.send();
  return reply.type("application/json; charset=utf-8").send(answer.body);
}

export function buildHttpApp(opts: HttpOptions): FastifyInstance {
  const app = Fastify({
    logger: { level: opts.logLevel, stream: process.stderr },
    logController: new LogController({ disableRequestLogging: true }),
    // ids over 128 characters must reach validation (400), not fall out of the router as 404
    routerOptions: { maxParamLength: 8192 },
    frameworkErrors: (err, request, reply) => {
      errorHandler(err, request, reply);
    },
  });
  // every body is JSON whatever its content-type says; an empty body is no body;
  // `__proto__` and `constructor.prototype` keys are unknown fields like any other (dropped)
  app.removeAllContentTypeParsers();
  const parseJson = app.getDefaultJsonParser("remove", "remove");
  app.addContentTypeParser("*", { parseAs: "string" }, (request, body, done) => {
    const text = body.toString();
    if (text === "") done(null, undefined);
    else parseJson(request, text, done);
  });
  app.setErrorHandler(errorHandler);
  app.setNotFoundHandler((request, reply) => {
    const url = request.url.length > 200 ? `${request.url.slice(0, 200)}...` : request.url;
    return sendError(reply, 404, "not-found", `no route ${request.method} ${url}`);
  });
  app.addHook("onRequest", async (request, reply) => {
    if (!opts.isReady() && request.url !== "/health" && request.url !== "/stats") {
      return sendError(reply, 503, "starting", "the StateFun job is not running yet");
    }
  });
  if (opts.spans) installTracing(app, opts.spans);

  /** One request to the job for this HTTP request, with its trace. */
  const ask = (request: FastifyRequest, message: Request, key?: string): Promise<Answer> => {
    const trace = traceOf(request, key);
    return opts.send(trace ? { ...message, traceId: trace.traceId, parentSpan: trace.spanId } : message);
  };
  const traced = (entity: RouteTrace["entity"], op: string) => ({ config: { entity, op } });

  app.get("/health", async (_request, reply) =>
    opts.isReady() ? json(reply, { status: "ok" }) : sendError(reply, 503, "starting", "the StateFun job is not running yet"),
  );
  app.get("/stats", async (_request, reply) => json(reply, opts.stats()));

  app.post("/products", traced("product", "createProduct"), async (request, reply) => {
    const { price, stock } = parseInput(ProductCreateBody, request.body, {});
    const id = randomUUID();
    return relay(reply, await ask(request, { type: "product.create", key: id, price: price ?? 0, stock: stock ?? 0 }, id));
  });
  app.patch("/products/:id", traced("product", "upsertProduct"), async (request, reply) => {
    const id = pathId(request);
    const body = parseInput(ProductPatchBody, request.body, {});
    return relay(reply, await ask(request, { type: "product.upsert", key: id, ...body }));
  });
  app.get("/products/:id", traced("product", "getProduct"), async (request, reply) =>
    relay(reply, await ask(request, { type: "product.get", key: pathId(request) })),
  );
  app.get("/products/:id/freq-items", traced("product", "freqItems"), async (request, reply) => {
    const id = pathId(request);
    const { top, depth } = parseInput(FreqItemsQuery, request.query, {});
    // keyed by the correlation id: the query's own coordinator
    return relay(reply, await ask(request, { type: "query.freq", productId: id, top, depth }));
  });

  app.post("/users", traced("user", "createUser"), async (request, reply) => {
    const { credits } = parseInput(UserCreateBody, request.body, {});
    const id = randomUUID();
    return relay(reply, await ask(request, { type: "user.create", key: id, credits: credits ?? 0 }, id));
  });
  app.get("/users/:id", traced("user", "getUser"), async (request, reply) => relay(reply, await ask(request, { type: "user.get", key: pathId(request) })));
  app.patch("/users/:id/credits/add", traced("user", "addCredits"), async (request, reply) => {
    const id = pathId(request);
    const { credits } = parseInput(AddCreditsBody, request.body);
    return relay(reply, await ask(request, { type: "user.addCredits", key: id, credits }));
  });

  app.post("/shopping-carts", traced("cart", "createCart"), async (request, reply) => {
    const id = randomUUID();
    return relay(reply, await ask(request, { type: "cart.create", key: id }, id));
  });
  app.get("/shopping-carts/:id", traced("cart", "getCart"), async (request, reply) =>
    relay(reply, await ask(request, { type: "cart.get", key: pathId(request) })),
  );
  app.post("/shopping-carts/:id/products", traced("cart", "addToCart"), async (request, reply) => {
    const id = pathId(request);
    const { productId, amount } = parseInput(AddToCartBody, request.body);
    // the product checks that it exists and passes the item on to the cart
    return relay(reply, await ask(request, { type: "product.addToCart", key: productId, cartId: id, amount }));
  });

  app.post("/orders/checkout", traced("order", "checkout"), async (request, reply) => {
    const { cartId, userId } = parseInput(CheckoutBody, request.body);
    return relay(reply, await ask(request, { type: "cart.checkout", key: cartId, userId, orderId: randomUUID() }, cartId));
  });
  app.get("/orders/:id", traced("order", "getOrder"), async (request, reply) => relay(reply, await ask(request, { type: "order.get", key: pathId(request) })));

  registerMicroRoutes(app, (message, extraMs) => opts.send(message, extraMs), relay);

  return app;
}
