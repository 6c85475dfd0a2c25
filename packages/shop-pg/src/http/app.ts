/**
 * The Fastify instance: body parsing, error shapes, readiness gate, tracing
 * hooks and the routes.
 */
import Fastify, { LogController, type FastifyInstance } from "fastify";
import type { Micro, Shop } from "../app/api.ts";
import type { SpanWriter } from "../app/trace.ts";
import { errorHandler, notFoundHandler, sendError } from "./errors.ts";
import { registerMicroRoutes } from "./micro-routes.ts";
import { registerRoutes } from "./routes.ts";
import { installTracing } from "./tracing.ts";

export type LogLevel = "fatal" | "error" | "warn" | "info" | "debug" | "trace" | "silent";

export interface HttpAppOptions {
  shop: Shop;
  /** the SPEC 8 microbenchmark functions */
  micro: Micro;
  /** false while the target starts: every route but /health answers 503 */
  isReady: () => boolean;
  /** what the target is doing until it is ready, for the 503 answer: "creating the database schema" */
  startingWhat: string;
  /** present when tracing is on */
  spans?: SpanWriter | undefined;
  logLevel: LogLevel;
}

export function buildHttpApp({ shop, micro, isReady, startingWhat, spans, logLevel }: HttpAppOptions): FastifyInstance {
  const app = Fastify({
    logger: { level: logLevel },
    logController: new LogController({ disableRequestLogging: true }),
    // Ids over 128 characters must reach validation (400), not fall out of the router as 404.
    routerOptions: { maxParamLength: 8192 },
    // Errors the router raises before any route runs (bad percent-encoding, ...): same JSON shape.
    frameworkErrors: (err, request, reply) => {
      errorHandler(err, request, reply);
    },
  });

  // Every body is parsed as JSON whatever its content-type; an empty body is "no body".
  // `__proto__` and `constructor.prototype` keys are unknown fields like any other (SPEC 2:
  // ignored), so they are dropped rather than refused.
  app.removeAllContentTypeParsers();
  const parseJson = app.getDefaultJsonParser("remove", "remove");
  app.addContentTypeParser("*", { parseAs: "string" }, (request, body, done) => {
    const text = body.toString();
    if (text === "") done(null, undefined);
    else parseJson(request, text, done);
  });

  app.setErrorHandler(errorHandler);
  app.setNotFoundHandler(notFoundHandler);

  app.addHook("onRequest", async (request, reply) => {
    if (!isReady() && request.url !== "/health") {
      return sendError(reply, 503, "starting", startingWhat);
    }
  });
  if (spans) installTracing(app, spans);

  registerRoutes(app, shop, isReady, startingWhat);
  registerMicroRoutes(app, micro);
  return app;
}
