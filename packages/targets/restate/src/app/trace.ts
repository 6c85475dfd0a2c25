/**
 * Function spans (SPEC 3) written by the handlers. The gateway hands its span
 * to Restate's ingress in the `x-sfbench-span` header (`<traceId>-<spanId>`);
 * every handler reads it from the invocation's headers, writes one span for
 * its own run under it, and passes its own span on to the objects it calls.
 *
 * The gateway sends the header only for a request whose traceparent is
 * sampled (the run's traced phase). Without it a handler writes no span and
 * its calls and sends carry no header, so nothing of a trace is journaled
 * and an unsampled request costs the handlers one header read.
 *
 * A handler's span id is derived from the invocation id, which Restate keeps
 * across retries, so a replayed handler sends the same headers it journaled.
 * When tracing is off nothing here runs.
 */
import { createHash } from "node:crypto";
import { rpc, type ObjectSharedContext, type Opts, type SendOpts } from "@restatedev/restate-sdk";
import type { Span } from "@sfbench/core";
import { wallMicros } from "@sfbench/core/span";
import { SpanWriter, type LineSink } from "./span-writer.ts";

export { SpanWriter, type LineSink };

export const SPAN_HEADER = "x-sfbench-span";
const SPAN_HEADER_RE = /^([0-9a-f]{32})-([0-9a-f]{16})$/;

export type Entity = NonNullable<Span["entity"]>;

let writer: SpanWriter | undefined;

/** Turns function spans on (the endpoint does this when SFBENCH_TRACE=1). */
export function enableSpans(sink: LineSink): SpanWriter {
  writer = new SpanWriter(sink);
  return writer;
}

/** The span of the running handler: what its outgoing calls carry. */
export interface HandlerSpan {
  traceId: string;
  spanId: string;
}

/** The header that carries the running handler's span to its callees (empty when not traced). */
export function spanHeaders(span: HandlerSpan | undefined): Record<string, string> {
  return span ? { [SPAN_HEADER]: `${span.traceId}-${span.spanId}` } : {};
}

/** Call options that carry the running handler's span to the callee. */
export function callOpts<I, O>(span: HandlerSpan | undefined): Opts<I, O> {
  return rpc.opts({ headers: spanHeaders(span) });
}

/** The same for one-way sends. */
export function sendOpts<I>(span: HandlerSpan | undefined): SendOpts<I> {
  return rpc.sendOpts({ headers: spanHeaders(span) });
}

/**
 * Wraps a handler: when tracing is on and the invocation carries a span
 * header (its request was sampled), the handler's run becomes a function span
 * of `entity`/`op` keyed by the object's key; otherwise it runs with no span
 * to pass on.
 */
export function traced<C extends ObjectSharedContext, I, O>(
  entity: Entity,
  op: string,
  handler: (ctx: C, input: I, span: HandlerSpan | undefined) => Promise<O>,
): (ctx: C, input: I) => Promise<O> {
  return async (ctx, input) => {
    const out = writer;
    if (!out) return handler(ctx, input, undefined);
    const request = ctx.request();
    const parent = SPAN_HEADER_RE.exec(request.headers.get(SPAN_HEADER) ?? "");
    if (!parent) return handler(ctx, input, undefined);
    const span: HandlerSpan = {
      traceId: parent[1]!,
      spanId: createHash("sha256").update(String(request.id)).digest("hex").slice(0, 16),
    };
    const start = wallMicros();
    try {
      return await handler(ctx, input, span);
    } finally {
      out.write({
        sfbench: "span",
        traceId: span.traceId,
        spanId: span.spanId,
        parentId: parent[2]!,
        kind: "function",
        entity,
        op,
        key: ctx.key,
        start,
        end: wallMicros(),
      });
    }
  };
}
