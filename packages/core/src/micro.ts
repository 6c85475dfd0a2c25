/**
 * The microbenchmark part of a result document (docs/spec.md section 8):
 * invocation overhead at fixed arrival rates and the highest clean rate of
 * `empty`, and the actor-messaging benchmarks (ping-pong, divide-and-conquer,
 * Big). Present in documents of schema version 2 whose run measured them;
 * a target that does not declare `micro` gets `{supported: false}`.
 *
 * Times: latencies in milliseconds as elsewhere; what the target reports about
 * its own handler (`handlerNs`) and the messaging totals in nanoseconds, as
 * the target measured them.
 */
import { z } from "zod";
import { MICRO_ROUTES } from "./lists.ts";

export { MICRO_ROUTES };

const count = z.number().int().nonnegative();
const nonneg = z.number().nonnegative();

export const MicroRoute = z.enum(MICRO_ROUTES);
export type MicroRoute = z.infer<typeof MicroRoute>;

/** p50 / p99 / mean of one quantity */
const Spread = z.strictObject({ p50: nonneg, p99: nonneg, mean: nonneg });

/** One route at one fixed arrival rate: end to end, inside the handler, and the difference (the overhead). */
export const MicroOverhead = z.strictObject({
  route: MicroRoute,
  /** the route's parameters as sent: {n}, {ms}, {bytes} */
  parameters: z.record(z.string(), z.number()),
  offeredRate: nonneg,
  achievedRate: nonneg,
  requests: count,
  errors: count,
  /** client-measured, ms */
  latencyMs: Spread,
  /** the handler's own time as the target reported it, ms (handlerNs / 1e6) */
  handlerMs: Spread,
  /** end to end minus in-handler, per request, ms */
  overheadMs: Spread,
});
export type MicroOverhead = z.infer<typeof MicroOverhead>;

/** Round-trip latency buckets as the target reported them: [upper bound in ns (null = above the last), count]. */
export const MicroHistogram = z.array(z.tuple([z.number().positive().nullable(), count]));

export const MicroPingPong = z.strictObject({
  pairs: count,
  bytes: count,
  /** round trips completed, pairs x messages */
  messages: count,
  totalNs: nonneg,
  /** round trips per second over all pairs */
  messagesPerS: nonneg,
  /** round-trip latency from the histogram (bucket upper bounds), ns; null: beyond the last bound (5 s) */
  rttNs: z.strictObject({ p50: nonneg.nullable(), p99: nonneg.nullable() }),
  histogram: MicroHistogram,
  /** end-to-end time of the HTTP request that ran it, ms */
  requestMs: nonneg,
});
export type MicroPingPong = z.infer<typeof MicroPingPong>;

export const MicroDivide = z.strictObject({
  items: count,
  fanout: count,
  leaf: count,
  entities: count,
  totalNs: nonneg,
  requestMs: nonneg,
});
export type MicroDivide = z.infer<typeof MicroDivide>;

export const MicroBig = z.strictObject({
  entities: count,
  messages: count,
  totalNs: nonneg,
  messagesPerS: nonneg,
  requestMs: nonneg,
});
export type MicroBig = z.infer<typeof MicroBig>;

export const MicroResult = z.union([
  z.strictObject({
    supported: z.literal(true),
    overhead: z.array(MicroOverhead),
    /** the highest rate of `empty` found sustainable (same rule as the ramp), and the knee's resolution */
    emptyMaxRate: z.strictObject({ sustainableRate: nonneg.nullable(), resolution: nonneg.nullable() }),
    pingpong: z.array(MicroPingPong),
    divide: z.array(MicroDivide),
    big: z.array(MicroBig),
    /** why a measurement is missing or not trustworthy (empty when all is well) */
    notes: z.array(z.string()).default([]),
  }),
  z.strictObject({
    supported: z.literal(false),
    /** e.g. 'target.json does not declare "micro": true' */
    reason: z.string().min(1),
  }),
]);
export type MicroResult = z.infer<typeof MicroResult>;
