package dev.sfbench.pekko.app;

import java.io.PrintStream;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.concurrent.ThreadLocalRandom;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * SPEC 3 span lines on stdout, one JSON object per line, when SFBENCH_TRACE=1,
 * for the requests whose traceparent says sampled (the run's traced phase).
 * Lines are written whole under a lock so that spans of concurrent actors
 * never interleave.
 */
public final class Spans {
  private static volatile boolean enabled;
  private static final PrintStream OUT = System.out;
  private static final Pattern TRACEPARENT = Pattern.compile("^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$");

  /** The caller's trace id and span id of a W3C traceparent. */
  public record Traceparent(String traceId, String parentId) {}

  private Spans() {}

  public static void enable(boolean on) {
    enabled = on;
  }

  public static boolean enabled() {
    return enabled;
  }

  /**
   * The trace a request continues (SPEC 3, core's sampledTraceparent): a
   * valid traceparent whose flags (hex) have bit 0, sampled, set. A missing,
   * invalid or unsampled one gives null: the request writes no span and
   * sends no trace to the entities, so the phases that rank the target (the
   * knee search, the stable phase) cost it only reading the header.
   */
  public static Traceparent sampledTraceparent(String header) {
    if (header == null) return null;
    Matcher m = TRACEPARENT.matcher(header.trim());
    if (!m.matches() || (Integer.parseInt(m.group(3), 16) & 1) == 0) return null;
    return new Traceparent(m.group(1), m.group(2));
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
