package dev.sfbench.pekko.app;

/**
 * The caller's trace: its trace id and the gateway span every function span
 * hangs under. Null when tracing is off or the request is not sampled: then
 * no message to an entity and no journaled event carries a trace.
 */
public record Trace(String traceId, String parentId) implements Wire {}
