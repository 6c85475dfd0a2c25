/**
 * Gateway spans (SPEC 3): one per request, from the moment Fastify sees it to
 * the moment the answer is written, under the caller's traceparent. The
 * route's `config` names the entity and the operation; the handler may set the
 * key. Installed only when tracing is on, so an untraced server runs none of
 * this; with it on, only a request whose traceparent is sampled (the run's
 * traced phase) gets a trace, so the other phases cost one header read.
 */
import type { FastifyInstance, FastifyRequest } from "fastify";
import { sampledTraceparent, type Span } from "@sfbench/core";
import { wallMicros } from "@sfbench/core/span";
import { randomHexId, type SpanWriter, type Trace } from "../app/trace.ts";

export interface RouteTraceConfig {
  entity?: Span["entity"];
  op?: string;
}

interface GatewayTrace extends Trace {
  parentId: string;
  start: number;
  key: string | undefined;
}

declare module "fastify" {
  interface FastifyRequest {
    sfbenchTrace: GatewayTrace | null;
  }
  interface FastifyContextConfig {
    entity?: RouteTraceConfig["entity"];
    op?: string;
  }
}

/** The trace of a request, for handing to the app layer (undefined when tracing is off or the request is not sampled). */
export function traceOf(request: FastifyRequest, key?: string): Trace | undefined {
  const trace = request.sfbenchTrace;
  if (!trace) return undefined;
  if (key !== undefined) trace.key = key;
  return trace;
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
    // Unsampled, missing or invalid: no trace, so neither this span nor the app layer's function spans are written.
    const parent = sampledTraceparent(typeof header === "string" ? header : undefined);
    if (!parent) return;
    request.sfbenchTrace = {
      traceId: parent.traceId,
      parentId: parent.parentId,
      spanId: randomHexId(),
      writer,
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
