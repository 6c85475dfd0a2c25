/**
 * Span lines of SPEC 3 from inside workerd: one JSON object per console.log
 * line, which workerd writes to its stdout and the launcher passes through
 * unchanged. A caller hands its span to the callee as a TraceContext, so the
 * callee's span becomes a child of the caller's. Only a sampled request has
 * one (the gateway's, tracing.ts); it is an RPC argument, never stored, so a
 * request without one writes no span and leaves nothing of a trace behind.
 *
 * workerd's clock advances only at I/O (as on Cloudflare): a span measures
 * the time between I/O events at millisecond resolution, and work that does
 * no I/O of its own (a synchronous storage call) shows as 0.
 */
export type Entity = "product" | "user" | "cart" | "order";

/** What an RPC carries so that the callee's spans join the caller's trace. */
export interface TraceContext {
  traceId: string;
  /** the caller's span: parent of the callee's spans */
  spanId: string;
}

export interface SpanLine {
  sfbench: "span";
  traceId: string;
  spanId: string;
  parentId: string | null;
  kind: "gateway" | "function";
  entity?: Entity;
  op: string;
  key?: string;
  start: number;
  end: number;
}

export const nowMicros = (): number => Date.now() * 1000;

/** A random id of `bytes` bytes as hex (8: a span id, 16: a trace id). */
export function randomHexId(bytes = 8): string {
  const buf = crypto.getRandomValues(new Uint8Array(bytes));
  let out = "";
  for (const b of buf) out += b.toString(16).padStart(2, "0");
  return out;
}

export function writeSpan(span: SpanLine): void {
  console.log(JSON.stringify(span));
}

/** An open function span; `child` is the context its callees get. */
export class FunctionSpan {
  readonly spanId = randomHexId();
  private readonly start = nowMicros();

  constructor(
    private readonly parent: TraceContext,
    private readonly entity: Entity,
    private readonly op: string,
    private readonly key: string,
  ) {}

  get child(): TraceContext {
    return { traceId: this.parent.traceId, spanId: this.spanId };
  }

  end(): void {
    writeSpan({
      sfbench: "span",
      traceId: this.parent.traceId,
      spanId: this.spanId,
      parentId: this.parent.spanId,
      kind: "function",
      entity: this.entity,
      op: this.op,
      key: this.key,
      start: this.start,
      end: nowMicros(),
    });
  }
}

/** Opens a function span when the call is traced (a context was passed), else undefined. */
export function openSpan(trace: TraceContext | undefined, entity: Entity, op: string, key: string): FunctionSpan | undefined {
  return trace ? new FunctionSpan(trace, entity, op, key) : undefined;
}

/** Runs `work` inside a function span when traced. */
export async function traced<T>(
  trace: TraceContext | undefined,
  entity: Entity,
  op: string,
  key: string,
  work: (child: TraceContext | undefined) => T | Promise<T>,
): Promise<T> {
  const span = openSpan(trace, entity, op, key);
  try {
    return await work(span?.child);
  } finally {
    span?.end();
  }
}
