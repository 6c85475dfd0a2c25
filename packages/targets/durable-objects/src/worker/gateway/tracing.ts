/**
 * Gateway spans (SPEC 3): one per request, from the moment the Worker sees
 * it to the moment its answer is ready, under the caller's traceparent.
 * Function spans of the objects it calls are its children.
 */
import { parseTraceparent } from "@sfbench/core/span";
import { nowMicros, randomHexId, writeSpan, type Entity, type TraceContext } from "../app/trace.ts";

export class GatewaySpan {
  readonly context: TraceContext;
  private readonly parentId: string | null;
  private readonly start = nowMicros();
  key: string | undefined;

  constructor(
    request: Request,
    private readonly entity: Entity,
    private readonly op: string,
  ) {
    const parent = parseTraceparent(request.headers.get("traceparent") ?? undefined);
    this.context = { traceId: parent?.traceId ?? randomHexId(16), spanId: randomHexId() };
    this.parentId = parent?.parentId ?? null;
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
