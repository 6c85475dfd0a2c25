package dev.sfbench.pekko.app;

import java.io.PrintStream;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.concurrent.ThreadLocalRandom;

/**
 * SPEC 3 span lines on stdout, one JSON object per line, when SFBENCH_TRACE=1.
 * Lines are written whole under a lock so that spans of concurrent actors
 * never interleave.
 */
public final class Spans {
  private static volatile boolean enabled;
  private static final PrintStream OUT = System.out;

  private Spans() {}

  public static void enable(boolean on) {
    enabled = on;
  }

  public static boolean enabled() {
    return enabled;
  }

  public static long nowMicros() {
    return ChronoUnit.MICROS.between(Instant.EPOCH, Instant.now());
  }

  public static String newSpanId() {
    return String.format("%016x", ThreadLocalRandom.current().nextLong());
  }

  /** A function span of `entity`.`op` on `key`, a child of the trace's gateway span. */
  public static void function(Trace trace, String entity, String op, String key, long start) {
    if (!enabled || trace == null) return;
    write(trace.traceId(), newSpanId(), trace.parentId(), "function", entity, op, key, start, nowMicros());
  }

  public static void write(String traceId, String spanId, String parentId, String kind, String entity, String op, String key, long start, long end) {
    var line = Json.object();
    line.put("sfbench", "span").put("traceId", traceId).put("spanId", spanId).put("parentId", parentId).put("kind", kind);
    if (entity != null) line.put("entity", entity);
    line.put("op", op);
    if (key != null) line.put("key", key);
    line.put("start", start).put("end", Math.max(start, end));
    String text = line.toString();
    synchronized (OUT) {
      OUT.println(text);
      OUT.flush();
    }
  }
}
