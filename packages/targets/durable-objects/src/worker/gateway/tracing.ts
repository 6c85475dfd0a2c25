/**
 * Gateway spans (SPEC 3): one per request, from the moment the Worker sees
 * it to the moment its answer is ready, under the caller's traceparent.
 * Function spans of the objects it calls are its children.
 *
 * Only a request whose traceparent is sampled (the run's traced phase) gets
 * a span. Any other request gets none and hands the objects no TraceContext,
 * so they write no span either: the phases that rank the target cost it one
 * header read.
 */
import { sampledTraceparent, type Traceparent } from "@sfbench/core/span";
import { nowMicros, randomHexId, writeSpan, type Entity, type TraceContext } from "../app/trace.ts";

/** The gateway span of a sampled request; undefined when its traceparent is unsampled, missing or invalid. */
export function openGatewaySpan(request: Request, entity: Entity, op: string): GatewaySpan | undefined {
  const parent = sampledTraceparent(request.headers.get("traceparent") ?? undefined);
  return parent ? new GatewaySpan(parent, entity, op) : undefined;
}

export class GatewaySpan {
  readonly context: TraceContext;
  private readonly parentId: string;
  private readonly start = nowMicros();
  key: string | undefined;

  constructor(
    parent: Traceparent,
    private readonly entity: Entity,
    private readonly op: string,
  ) {
    this.context = { traceId: parent.traceId, spanId: randomHexId() };
    this.parentId = parent.parentId;
  }

  end(): void {
    writeSpan({
      sfbench: "span",
      traceId: this.context.traceId,
      spanId: this.context.spanId,
      parentId: this.parentId,
      kind: "gateway",
      entity: this.entity,
      op: this.op,
      ...(this.key !== undefined ? { key: this.key } : {}),
      start: this.start,
      end: nowMicros(),
    });
  }
}
