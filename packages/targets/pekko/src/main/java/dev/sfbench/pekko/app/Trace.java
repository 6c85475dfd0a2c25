package dev.sfbench.pekko.app;

/** The caller's trace: its trace id and the gateway span every function span hangs under (null when tracing is off). */
public record Trace(String traceId, String parentId) implements Wire {}
