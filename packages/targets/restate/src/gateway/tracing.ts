/**
 * Gateway spans (SPEC 3): one per request, from the moment Fastify sees it to
 * the moment the answer is written, under the caller's traceparent. The span
 * is handed to Restate in the `x-sfbench-span` header, so that the handlers'
 * function spans hang under it. Installed only when tracing is on; with it
 * on, only a request whose traceparent is sampled (the run's traced phase)
 * gets a span. Any other request sends Restate no span header, so its
 * handlers write nothing and journal no trace: the phases that rank the
 * target cost it one header read.
 */
import { randomBytes } from "node:crypto";
import type { FastifyInstance, FastifyRequest } from "fastify";
import { sampledTraceparent, type Span } from "@sfbench/core";
import { wallMicros } from "@sfbench/core/span";
import type { SpanWriter } from "../app/span-writer.ts";

interface GatewayTrace {
  traceId: string;
  spanId: string;
  parentId: string;
  start: number;
  key: string | undefined;
}

declare module "fastify" {
  interface FastifyRequest {
    sfbenchTrace: GatewayTrace | null;
  }
  interface FastifyContextConfig {
    entity?: Span["entity"];
    op?: string;
  }
}

/** The span header for this request's calls to Restate (undefined when tracing is off or the request is not sampled); sets the span's key if given. */
export function spanOf(request: FastifyRequest, key?: string): string | undefined {
  const trace = request.sfbenchTrace;
  if (!trace) return undefined;
  if (key !== undefined) trace.key = key;
  return `${trace.traceId}-${trace.spanId}`;
}

function idParam(request: FastifyRequest): string | undefined {
  const { id } = request.params as { id?: unknown };
  return typeof id === "string" ? id : undefined;
}

export function installTracing(app: FastifyInstance, writer: SpanWriter): void {
  app.decorateRequest("sfbenchTrace", null);
  app.addHook("onRequest", async (request) => {
    if (!request.routeOptions.config.op) return;
    const header = request.headers.traceparent;
    // Unsampled, missing or invalid: no span here, and none handed to Restate.
    const parent = sampledTraceparent(typeof header === "string" ? header : undefined);
    if (!parent) return;
    request.sfbenchTrace = {
      traceId: parent.traceId,
      parentId: parent.parentId,
      spanId: randomBytes(8).toString("hex"),
      start: wallMicros(),
      key: idParam(request),
    };
  });
  app.addHook("onResponse", async (request) => {
    const trace = request.sfbenchTrace;
    const { entity, op } = request.routeOptions.config;
    if (!trace || !op) return;
    writer.write({
      sfbench: "span",
      traceId: trace.traceId,
      spanId: trace.spanId,
      parentId: trace.parentId,
      kind: "gateway",
      ...(entity ? { entity } : {}),
      op,
      ...(trace.key !== undefined ? { key: trace.key } : {}),
      start: trace.start,
      end: wallMicros(),
    });
  });
}
