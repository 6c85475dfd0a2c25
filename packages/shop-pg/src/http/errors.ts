/**
 * Every error answer is `{"error": "<code>", "message": "..."}` (SPEC 2),
 * including Fastify's own (bad JSON, body too large, unknown route).
 */
import type { FastifyError, FastifyReply, FastifyRequest } from "fastify";
import { AppError } from "../app/errors.ts";

/** Invalid input found by the gateway: 400 bad-request. */
export class BadRequest extends Error {
  override name = "BadRequest";
}

export function sendError(reply: FastifyReply, status: number, error: string, message: string): FastifyReply {
  return reply.code(status).type("application/json; charset=utf-8").send(JSON.stringify({ error, message }));
}

const APP_STATUS: Record<AppError["code"], number> = {
  "not-found": 404,
  "bad-request": 400,
  "empty-cart": 409,
  "cart-checked-out": 409,
  "insufficient-stock": 409,
  "insufficient-credits": 409,
};

const CODE_BY_STATUS: Record<number, string> = {
  404: "not-found",
  413: "payload-too-large",
  415: "unsupported-media-type",
};

export function errorHandler(err: FastifyError | Error, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  if (err instanceof BadRequest) return sendError(reply, 400, "bad-request", err.message);
  if (err instanceof AppError) return sendError(reply, APP_STATUS[err.code], err.code, err.message);
  const status = "statusCode" in err && typeof err.statusCode === "number" ? err.statusCode : 500;
  if (status >= 400 && status < 500) return sendError(reply, status, CODE_BY_STATUS[status] ?? "bad-request", err.message);
  // PostgreSQL "data exception" (class 22): a value the validation let through but the database refuses.
  if ("code" in err && typeof err.code === "string" && err.code.startsWith("22")) {
    return sendError(reply, 400, "bad-request", err.message);
  }
  request.log.error({ err }, "request failed");
  return sendError(reply, 500, "internal", err.message);
}

export function notFoundHandler(request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const url = request.url.length > 200 ? `${request.url.slice(0, 200)}...` : request.url;
  return sendError(reply, 404, "not-found", `no route ${request.method} ${url}`);
}
