/**
 * The gateway's Fastify instance: body parsing, error shapes, tracing hooks
 * and the routes. It holds no state: every route is a call to Restate.
 */
import Fastify, { LogController, type FastifyInstance } from "fastify";
import type { SpanWriter } from "../app/span-writer.ts";
import { errorHandler, notFoundHandler } from "./errors.ts";
import type { Ingress } from "./ingress.ts";
import { registerMicroRoutes } from "./micro-routes.ts";
import { registerRoutes } from "./routes.ts";
import { installTracing } from "./tracing.ts";

export type LogLevel = "fatal" | "error" | "warn" | "info" | "debug" | "trace" | "silent";

export interface GatewayOptions {
  ingress: Ingress;
  /** present when tracing is on */
  spans?: SpanWriter | undefined;
  logLevel: LogLevel;
}

export function buildGateway({ ingress, spans, logLevel }: GatewayOptions): FastifyInstance {
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
  if (spans) installTracing(app, spans);
  registerRoutes(app, ingress);
  registerMicroRoutes(app, ingress);
  return app;
}
