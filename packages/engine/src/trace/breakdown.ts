/**
 * The latency breakdown (SPEC 5) from spans (SPEC 3).
 *
 * Per trace, along the critical path: walking back from the end of the
 * gateway span, at each fan-in the child that finished last is on the path;
 * its own critical path is taken, and the walk continues from its start.
 * Time on the path inside a function span and not in one of its children is
 * that span's entity's function time; the rest of the gateway span is gateway
 * time. Per group (all requests, per cart size, per query shape):
 *
 *   gatewayMs    mean gateway time
 *   functionMs   mean function time per entity (0 for a request that had none)
 *   networkMs    mean client latency - mean gateway span duration (network +
 *                queueing before the gateway saw the request), never negative
 *
 * The output is the shape the web charts read (apps/web/src/charts/data/breakdown.ts):
 * `{overall: {gatewayMs, functionMs: {entity: ms}, networkMs, count}, byCartSize?, byShape?}`,
 * plus `notes` when something was clamped or left out.
 */
import type { Span } from "@sfbench/core";

/** Critical-path times of one request, microseconds. */
export interface TraceTimes {
  traceId: string;
  /** duration of the trace's gateway span */
  totalUs: number;
  /** gateway time: totalUs minus the function time on the critical path */
  gatewayUs: number;
  /** function time on the critical path, per entity */
  functionUs: Record<string, number>;
  /** spans whose parent is not in the trace, counted under the gateway span */
  reparented: number;
}

export type BreakdownPart = {
  gatewayMs: number;
  functionMs: Record<string, number>;
  networkMs: number;
  count: number;
};

/**
 * How much of the phase the breakdown describes, and whether its parts add up.
 * A breakdown from too few of the phase's requests, or whose parts are off
 * the measured latency, is `flagged` with the reasons: shown as such, not as fact.
 */
export type BreakdownCoverage = {
  /** answered measured requests of the phase (the client latency's count) */
  requests: number;
  /** of them, requests with a gateway span */
  traced: number;
  /** of the traced, those whose every span's parent was shipped too */
  complete: number;
  /** complete / requests */
  share: number;
  /** mean client latency of the phase, ms */
  clientMs: number;
  /** gateway + functions + network + queueing of the overall part, ms (network is clamped at 0) */
  sumMs: number;
  /** mean gateway span of the traced requests, ms: what the spans themselves account for */
  spansMs: number;
  /** |sumMs - clientMs| / clientMs */
  deviation: number;
  flagged: boolean;
  /** why it is flagged; empty when it is not */
  flags: string[];
};

/** A breakdown needs complete traces for at least this share of the phase's requests... */
export const MIN_TRACE_COVERAGE = 0.9;
/** ...and its parts must add up to the measured latency within this share. */
export const MAX_SUM_DEVIATION = 0.1;

export type LatencyBreakdown = {
  overall: BreakdownPart;
  coverage?: BreakdownCoverage;
  byCartSize?: Record<string, BreakdownPart>;
  byShape?: Record<string, BreakdownPart>;
  /** what was clamped or left out, readable; absent when nothing was */
  notes?: string[];
};

/** Mean client latency (ms) of the measured requests, from the cell's stable-phase stats. */
export interface ClientLatency {
  overall: number;
  byCartSize?: Record<string, number>;
  byShape?: Record<string, number>;
}

/** Which group a measured request belongs to. */
export interface MeasuredRequest {
  cartSize?: string;
  shape?: string;
}

export interface BreakdownInput {
  spans: readonly Span[];
  client: ClientLatency;
  /**
   * The measured requests by trace id (e.g. the checkouts of the stable
   * phase, from the audit records). Undefined: every trace with a gateway span
   * is a measured request (a phase that sends only the measured request).
   */
  measured?: ReadonlyMap<string, MeasuredRequest>;
  /** answered measured requests of the phase (the client latency's count): the coverage's denominator */
  requests?: number;
}

const entityOf = (span: Span) => span.entity ?? span.op;

/**
 * Times of one trace along its critical path, or undefined when the trace has
 * no gateway span. The root is the gateway span whose parent is not in the
 * trace (the client's span); when there are several, the longest.
 */
export function traceTimes(spans: readonly Span[]): TraceTimes | undefined {
  const byId = new Map<string, Span>();
  for (const s of spans) if (!byId.has(s.spanId)) byId.set(s.spanId, s); // a span shipped twice counts once
  const all = [...byId.values()];
  const hasParent = (s: Span) => s.parentId != null && s.parentId !== s.spanId && byId.has(s.parentId);
  const gateways = all.filter((s) => s.kind === "gateway");
  const roots = gateways.filter((s) => !hasParent(s));
  const root = (roots.length ? roots : gateways).reduce<Span | undefined>(
    (best, s) => (!best || s.end - s.start > best.end - best.start ? s : best),
    undefined,
  );
  if (!root) return undefined;

  const children = new Map<string, Span[]>();
  let reparented = 0;
  for (const s of all) {
    if (s === root) continue;
    let parent: string;
    if (hasParent(s)) parent = s.parentId!;
    else if (s.kind === "function") {
      // its parent was lost (or never shipped): the work still happened in this request
      parent = root.spanId;
      reparented++;
    } else continue; // another root gateway span of the same trace id: not this request
    const list = children.get(parent);
    if (list) list.push(s);
    else children.set(parent, [s]);
  }
  // latest end first; among equal ends the earlier start (the longer span) first
  for (const list of children.values()) list.sort((a, b) => b.end - a.end || a.start - b.start || (a.spanId < b.spanId ? -1 : 1));

  const times: TraceTimes = { traceId: root.traceId, totalUs: Math.max(0, root.end - root.start), gatewayUs: 0, functionUs: {}, reparented };
  const visited = new Set<string>();
  const walk = (span: Span, from: number, to: number) => {
    visited.add(span.spanId);
    let cursor = to;
    let self = 0;
    for (const child of children.get(span.spanId) ?? []) {
      if (cursor <= from) break;
      if (visited.has(child.spanId) || child.start >= cursor) continue; // starts after the path's cursor: never on it
      const end = Math.min(child.end, cursor);
      if (end <= from) break; // sorted by end: no later child reaches into the window either
      const start = Math.max(child.start, from);
      self += cursor - end;
      walk(child, start, end);
      cursor = start;
    }
    self += Math.max(0, cursor - from);
    if (span.kind === "gateway") times.gatewayUs += self;
    else times.functionUs[entityOf(span)] = (times.functionUs[entityOf(span)] ?? 0) + self;
  };
  walk(root, root.start, Math.max(root.start, root.end));
  return times;
}

const ms = (us: number) => Math.round(us) / 1000;

/** SPEC 2's entities in a fixed order (then any other, alphabetically), so documents read the same way. */
const ENTITY_ORDER = ["product", "user", "cart", "order"];
const entityRank = (e: string) => (ENTITY_ORDER.includes(e) ? ENTITY_ORDER.indexOf(e) : ENTITY_ORDER.length);

interface Group {
  traces: TraceTimes[];
}

function part(group: Group, clientMeanMs: number, where: string, notes: string[]): BreakdownPart {
  const n = group.traces.length;
  const functionUs: Record<string, number> = {};
  let gatewayUs = 0;
  let totalUs = 0;
  for (const t of group.traces) {
    gatewayUs += t.gatewayUs;
    totalUs += t.totalUs;
    for (const [entity, us] of Object.entries(t.functionUs)) functionUs[entity] = (functionUs[entity] ?? 0) + us;
  }
  const meanGatewaySpanMs = totalUs / n / 1000;
  let networkMs = clientMeanMs - meanGatewaySpanMs;
  if (networkMs < 0) {
    notes.push(
      `${where}: the mean client latency (${clientMeanMs.toFixed(3)} ms) is below the mean gateway span (${meanGatewaySpanMs.toFixed(3)} ms); network + queueing clamped to 0`,
    );
    networkMs = 0;
  }
  return {
    gatewayMs: ms(gatewayUs / n),
    functionMs: Object.fromEntries(
      Object.entries(functionUs)
        .sort(([a], [b]) => entityRank(a) - entityRank(b) || a.localeCompare(b))
        .map(([entity, us]) => [entity, ms(us / n)]),
    ),
    networkMs: Math.round(networkMs * 1000) / 1000,
    count: n,
  };
}

function byKey(traces: TraceTimes[], keyOf: (t: TraceTimes) => string | undefined): Map<string, Group> {
  const groups = new Map<string, Group>();
  for (const t of traces) {
    const key = keyOf(t);
    if (key === undefined) continue;
    const g = groups.get(key);
    if (g) g.traces.push(t);
    else groups.set(key, { traces: [t] });
  }
  return groups;
}

function parts(
  groups: Map<string, Group>,
  client: Record<string, number> | undefined,
  what: string,
  notes: string[],
): Record<string, BreakdownPart> | undefined {
  const out: Record<string, BreakdownPart> = {};
  const keys = [...groups.keys()].sort((a, b) => Number(a) - Number(b) || a.localeCompare(b));
  for (const key of keys) {
    const mean = client?.[key];
    if (mean === undefined) {
      notes.push(`${what}.${key}: ${groups.get(key)!.traces.length} traced requests but no client latency for this group; left out`);
      continue;
    }
    out[key] = part(groups.get(key)!, mean, `${what}.${key}`, notes);
  }
  return Object.keys(out).length ? out : undefined;
}

/** The breakdown of the measured requests, or undefined when none of them has a gateway span. */
export function buildBreakdown(input: BreakdownInput): LatencyBreakdown | undefined {
  const byTrace = new Map<string, Span[]>();
  for (const s of input.spans) {
    if (input.measured && !input.measured.has(s.traceId)) continue;
    const list = byTrace.get(s.traceId);
    if (list) list.push(s);
    else byTrace.set(s.traceId, [s]);
  }
  const traces: TraceTimes[] = [];
  let withoutGateway = 0;
  for (const spans of byTrace.values()) {
    const t = traceTimes(spans);
    if (t) traces.push(t);
    else withoutGateway++;
  }
  if (traces.length === 0) return undefined;

  const notes: string[] = [];
  const overall = part({ traces }, input.client.overall, "overall", notes);
  const groupOf = (t: TraceTimes) => input.measured?.get(t.traceId);
  const byCartSize = parts(
    byKey(traces, (t) => groupOf(t)?.cartSize),
    input.client.byCartSize,
    "byCartSize",
    notes,
  );
  const byShape = parts(
    byKey(traces, (t) => groupOf(t)?.shape),
    input.client.byShape,
    "byShape",
    notes,
  );

  if (input.measured) {
    const missing = input.measured.size - traces.length - withoutGateway;
    if (missing > 0) notes.push(`${missing} of ${input.measured.size} measured requests have no spans; the means are over the ${traces.length} that have`);
  }
  if (withoutGateway > 0) notes.push(`${withoutGateway} traces without a gateway span left out`);
  const reparented = traces.reduce((n, t) => n + t.reparented, 0);
  if (reparented > 0) notes.push(`${reparented} spans whose parent is missing counted under their trace's gateway span`);

  const coverage = coverageOf(traces, overall, input.client.overall, input.requests ?? input.measured?.size ?? traces.length);
  return {
    overall,
    coverage,
    ...(byCartSize ? { byCartSize } : {}),
    ...(byShape ? { byShape } : {}),
    ...(notes.length ? { notes } : {}),
  };
}

const pct = (x: number) => `${(x * 100).toFixed(1).replace(/\.0$/, "")}%`;

/** The coverage of a breakdown: complete traces per request of the phase, and how far its parts are from the measured latency. */
export function coverageOf(traces: readonly TraceTimes[], overall: BreakdownPart, clientMs: number, requests: number): BreakdownCoverage {
  const complete = traces.filter((t) => t.reparented === 0).length;
  const share = requests > 0 ? Math.min(1, complete / requests) : 0;
  const spansUs = traces.reduce((sum, t) => sum + t.totalUs, 0) / Math.max(1, traces.length);
  const sumMs = overall.gatewayMs + Object.values(overall.functionMs).reduce((a, b) => a + b, 0) + overall.networkMs;
  const deviation = clientMs > 0 ? Math.abs(sumMs - clientMs) / clientMs : sumMs > 0 ? 1 : 0;
  const flags: string[] = [];
  if (share < MIN_TRACE_COVERAGE)
    flags.push(`only ${pct(share)} of the phase's ${requests} requests produced a complete trace (needs >= ${pct(MIN_TRACE_COVERAGE)})`);
  if (deviation > MAX_SUM_DEVIATION)
    flags.push(
      `the parts add up to ${sumMs.toFixed(2)} ms, ${pct(deviation)} off the measured mean latency of ${clientMs.toFixed(2)} ms (needs <= ${pct(MAX_SUM_DEVIATION)}): the spans last longer than the requests took`,
    );
  const r3 = (x: number) => Math.round(x * 1000) / 1000;
  return {
    requests,
    traced: traces.length,
    complete,
    share: r3(share),
    clientMs: r3(clientMs),
    sumMs: r3(sumMs),
    spansMs: r3(spansUs / 1000),
    deviation: r3(deviation),
    flagged: flags.length > 0,
    flags,
  };
}
