/**
 * Span lines of SPEC 3. When tracing is off, or the request's traceparent is
 * not sampled, nothing here runs: callers hold `undefined` instead of a Trace
 * and call `work()` directly.
 */
import { randomBytes } from "node:crypto";
import type { Span } from "@sfbench/core";
import { wallMicros } from "@sfbench/core/span";

type Entity = NonNullable<Span["entity"]>;

/** Where span lines go; process.stdout in production. */
export interface LineSink {
  write(chunk: string): unknown;
}

/**
 * Collects spans and writes them as lines in one chunk every `intervalMs`
 * (or every 4096 spans), serialised at that moment. A traced request costs an
 * array push per span; the JSON and the write happen at most 20 times a
 * second, not inside every event-loop turn of a request in flight, where
 * they took CPU from the target's PostgreSQL on the same core (~0.1 ms of a
 * 1 ms checkout, measured). The tracing contract (SPEC 3) does not care when
 * a line is written; sfbench ships a phase's spans after a drain.
 */
export class SpanWriter {
  private pending: Span[] = [];
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly sink: LineSink,
    private readonly intervalMs = 50,
  ) {}

  write(span: Span): void {
    this.pending.push(span);
    if (this.pending.length >= 4096) this.flush();
    else if (!this.timer) {
      this.timer = setTimeout(() => this.flush(), this.intervalMs);
      // a pending flush does not keep the process alive; close() flushes
      this.timer.unref();
    }
  }

  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (!this.pending.length) return;
    const spans = this.pending;
    this.pending = [];
    let chunk = "";
    for (const span of spans) chunk += JSON.stringify(span) + "\n";
    this.sink.write(chunk);
  }
}

/** The gateway span of one request, under which function spans are recorded. */
export interface Trace {
  readonly traceId: string;
  readonly spanId: string;
  readonly writer: SpanWriter;
}

const ID_POOL_SIZE = 4096;
let idPool = Buffer.alloc(0);
let idOffset = 0;

/** A random 64-bit id as 16 hex digits (`bytes` = 16 gives a 128-bit trace id). */
export function randomHexId(bytes = 8): string {
  if (idOffset + bytes > idPool.length) {
    idPool = randomBytes(ID_POOL_SIZE);
    idOffset = 0;
  }
  const id = idPool.toString("hex", idOffset, idOffset + bytes);
  idOffset += bytes;
  return id;
}

/** Records one function span per key, all covering [start, end] (work done by one statement). */
export function recordFunctionSpans(trace: Trace, entity: Entity, op: string, keys: readonly string[], start: number, end: number): void {
  for (const key of keys) {
    trace.writer.write({
      sfbench: "span",
      traceId: trace.traceId,
      spanId: randomHexId(),
      parentId: trace.spanId,
      kind: "function",
      entity,
      op,
      key,
      start,
      end,
    });
  }
}

/** Runs `work` as a function span of `entity` when traced; otherwise just runs it. */
export async function traced<T>(trace: Trace | undefined, entity: Entity, op: string, keys: string | readonly string[], work: () => Promise<T>): Promise<T> {
  if (!trace) return work();
  const start = wallMicros();
  try {
    return await work();
  } finally {
    recordFunctionSpans(trace, entity, op, typeof keys === "string" ? [keys] : keys, start, wallMicros());
  }
}
