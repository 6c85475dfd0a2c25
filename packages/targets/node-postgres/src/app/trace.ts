/**
 * Span lines of SPEC 3. When tracing is off nothing here runs: callers hold
 * `undefined` instead of a Trace and call `work()` directly.
 */
import { randomBytes } from "node:crypto";
import type { Span } from "@sfbench/core";

type Entity = NonNullable<Span["entity"]>;

/** Where span lines go; process.stdout in production. */
export interface LineSink {
  write(chunk: string): unknown;
}

/**
 * Collects span lines and writes them in one chunk per event-loop turn (or
 * every 64 KiB), so that a traced request costs one string append per span.
 */
export class SpanWriter {
  private buffer = "";
  private scheduled = false;

  constructor(private readonly sink: LineSink) {}

  write(span: Span): void {
    this.buffer += JSON.stringify(span) + "\n";
    if (this.buffer.length >= 65_536) this.flush();
    else if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => this.flush());
    }
  }

  flush(): void {
    this.scheduled = false;
    if (!this.buffer) return;
    const chunk = this.buffer;
    this.buffer = "";
    this.sink.write(chunk);
  }
}

/** The gateway span of one request, under which function spans are recorded. */
export interface Trace {
  readonly traceId: string;
  readonly spanId: string;
  readonly writer: SpanWriter;
}

/** Epoch microseconds with sub-millisecond resolution. */
export function nowMicros(): number {
  return Math.round((performance.timeOrigin + performance.now()) * 1000);
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
export function recordFunctionSpans(
  trace: Trace,
  entity: Entity,
  op: string,
  keys: readonly string[],
  start: number,
  end: number,
): void {
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
export async function traced<T>(
  trace: Trace | undefined,
  entity: Entity,
  op: string,
  keys: string | readonly string[],
  work: () => Promise<T>,
): Promise<T> {
  if (!trace) return work();
  const start = nowMicros();
  try {
    return await work();
  } finally {
    recordFunctionSpans(trace, entity, op, typeof keys === "string" ? [keys] : keys, start, nowMicros());
  }
}
