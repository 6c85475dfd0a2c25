/**
 * Span lines of SPEC section 3: one JSON object per line on a target's stdout.
 */
import { z } from "zod";

export const SpanKind = z.enum(["gateway", "function"]);
export const Entity = z.enum(["product", "user", "cart", "order"]);

export const Span = z.object({
  sfbench: z.literal("span"),
  traceId: z.string().regex(/^[0-9a-f]{32}$/),
  spanId: z.string().regex(/^[0-9a-f]{16}$/),
  parentId: z
    .string()
    .regex(/^[0-9a-f]{16}$/)
    .nullable()
    .optional(),
  kind: SpanKind,
  entity: Entity.optional(),
  op: z.string().min(1),
  key: z.string().optional(),
  /** epoch microseconds */
  start: z.number().int().nonnegative(),
  /** epoch microseconds */
  end: z.number().int().nonnegative(),
});
export type Span = z.infer<typeof Span>;

/** Parses one stdout line; lines that are not spans give null (SPEC 3: they are ignored). */
export function parseSpanLine(line: string): Span | null {
  if (!line.startsWith("{") || !line.includes('"sfbench"')) return null;
  try {
    const r = Span.safeParse(JSON.parse(line));
    return r.success ? r.data : null;
  } catch {
    return null;
  }
}

/** W3C traceparent: version-traceid-parentid-flags. */
export const TRACEPARENT_RE = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

export interface Traceparent {
  traceId: string;
  parentId: string;
  /** the flags' sampled bit: the workload sets it only in the traced phase (SPEC 3) */
  sampled: boolean;
}

export function parseTraceparent(header: string | undefined): Traceparent | null {
  const m = header ? TRACEPARENT_RE.exec(header.trim()) : null;
  return m ? { traceId: m[1]!, parentId: m[2]!, sampled: (parseInt(m[3]!, 16) & 1) === 1 } : null;
}

/**
 * The trace a target continues for a request (SPEC 3): only a valid, sampled
 * traceparent starts spans; a missing, invalid or unsampled one writes none,
 * so a target started with tracing on costs its untraced phases (the knee
 * search, the stable phase) nothing but reading one header.
 */
export function sampledTraceparent(header: string | undefined): Traceparent | null {
  const parent = parseTraceparent(header);
  return parent?.sampled ? parent : null;
}

/**
 * The wall clock in epoch microseconds, for span times that are compared
 * across processes: a gateway's span holds the spans its request caused in
 * other processes (a JVM, a Go sidecar), which read the system's wall clock.
 * `performance.timeOrigin` is sampled once when the process starts; on a
 * loaded machine, or after the wall clock is stepped, it can be a few
 * milliseconds off that clock, so a function span would seem to start
 * before the gateway span that caused it. This clock keeps
 * `performance.now()`'s resolution and ties it to `Date.now()`: every
 * reading bounds the offset between the two (Date.now() is the wall clock
 * floored to the millisecond), and the offset kept is moved just enough to
 * agree with each reading, which follows a stepped clock within one reading.
 */
export function wallMicros(): number {
  wallOffset ??= anchorWallOffset();
  const perf = performance.now() * 1000;
  const lower = Date.now() * 1000 - perf;
  if (lower > wallOffset) wallOffset = lower;
  else if (lower + 1000 <= wallOffset) wallOffset = lower + 999;
  return Math.floor(perf + wallOffset);
}

let wallOffset: number | undefined;

/**
 * The offset at the edge of one wall-clock millisecond, where Date.now() is
 * exact: once per process, at most a few milliseconds of waiting. The
 * performance clock is read just after the edge is seen, so a pause there
 * only makes the estimate smaller, and the largest of three is kept.
 */
function anchorWallOffset(): number {
  let best = -Infinity;
  for (let i = 0; i < 3; i++) {
    const start = Date.now();
    let edge = start;
    let perf = 0;
    while (edge === start) {
      edge = Date.now();
      perf = performance.now();
    }
    best = Math.max(best, edge * 1000 - perf * 1000);
  }
  return best;
}
