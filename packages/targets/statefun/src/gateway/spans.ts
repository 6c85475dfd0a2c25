/**
 * Gateway spans (SPEC 3): one per sampled request, from the moment Fastify
 * sees it to the moment the answer is written, under the caller's
 * traceparent. The trace id and this span's id travel with the request
 * through Kafka, so the functions' spans (written by the JVM) hang under it.
 * A request whose traceparent is missing, invalid or not sampled (every phase
 * of a run but the traced one) gets no trace: no span here, and no trace id in
 * its Kafka record, so the JVM writes none either. Installed only when tracing
 * is on.
 */
import { randomBytes } from "node:crypto";
import type { FastifyInstance, FastifyRequest } from "fastify";
import { sampledTraceparent, wallMicros, type Span } from "@sfbench/core";

export interface LineSink {
  write(chunk: string): unknown;
}

/** Span lines, written once per event-loop turn as one chunk of whole lines. */
export class SpanWriter {
  private lines: string[] = [];
  private scheduled = false;

  constructor(private readonly sink: LineSink = process.stdout) {}

  write(span: Span): void {
    this.lines.push(JSON.stringify(span));
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => this.flush());
  }

  flush(): void {
    this.scheduled = false;
    if (this.lines.length === 0) return;
    const chunk = this.lines.join("\n") + "\n";
    this.lines = [];
    this.sink.write(chunk);
  }
}

const hexId = (bytes: number) => randomBytes(bytes).toString("hex");

export interface GatewayTrace {
  traceId: string;
  spanId: string;
  parentId: string;
  start: number;
  key: string | undefined;
}

export interface RouteTrace {
  entity: NonNullable<Span["entity"]>;
  op: string;
}

const traces = new WeakMap<FastifyRequest, GatewayTrace>();

/** The request's trace (undefined when tracing is off, the request is not sampled or the route is not traced); `key` names the entity for the span. */
export function traceOf(request: FastifyRequest, key?: string): GatewayTrace | undefined {
  const trace = traces.get(request);
  if (trace && key !== undefined) trace.key = key;
  return trace;
}

export function installTracing(app: FastifyInstance, writer: SpanWriter): void {
  app.addHook("onRequest", async (request) => {
    const route = request.routeOptions.config as Partial<RouteTrace>;
    if (!route.op) return;
    const header = request.headers.traceparent;
    const parent = sampledTraceparent(typeof header === "string" ? header : undefined);
    if (!parent) return;
    const { id } = (request.params ?? {}) as { id?: unknown };
    traces.set(request, {
      traceId: parent.traceId,
      parentId: parent.parentId,
      spanId: hexId(8),
      start: wallMicros(),
      key: typeof id === "string" ? id : undefined,
    });
  });
  app.addHook("onResponse", async (request) => {
    const trace = traces.get(request);
    const route = request.routeOptions.config as Partial<RouteTrace>;
    if (!trace || !route.op) return;
    writer.write({
      sfbench: "span",
      traceId: trace.traceId,
      spanId: trace.spanId,
      parentId: trace.parentId,
      kind: "gateway",
      ...(route.entity ? { entity: route.entity } : {}),
      op: route.op,
      ...(trace.key !== undefined ? { key: trace.key } : {}),
      start: trace.start,
      end: wallMicros(),
    });
  });
}
