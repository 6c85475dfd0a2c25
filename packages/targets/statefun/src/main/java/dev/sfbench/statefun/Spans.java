package dev.sfbench.statefun;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Function spans (SPEC 3): one JSON line on stdout per function invocation of
 * a traced request, when SFBENCH_TRACE=1. A request is traced when the
 * gateway put a trace id into it, which it does only for a sampled
 * traceparent (the run's traced phase); the messages of any other request
 * carry none and cost no span and no clock reads here. Lines are queued and
 * written by one daemon thread every few milliseconds, each batch in one
 * write() of complete lines, so they never interleave mid-line with the
 * gateway's lines in the same log file.
 */
public final class Spans {
  private Spans() {}

  private static volatile boolean enabled = false;
  private static final ConcurrentLinkedQueue<String> QUEUE = new ConcurrentLinkedQueue<>();

  /** Turns span writing on (Main, from SFBENCH_TRACE) and starts the writer thread. */
  public static synchronized void enable() {
    if (enabled) return;
    enabled = true;
    Thread writer = new Thread(Spans::drainForever, "sfbench-span-writer");
    writer.setDaemon(true);
    writer.start();
    Runtime.getRuntime().addShutdownHook(new Thread(Spans::drain));
  }

  public static boolean enabled() {
    return enabled;
  }

  /** Epoch microseconds. */
  public static long now() {
    Instant t = Instant.now();
    return t.getEpochSecond() * 1_000_000L + t.getNano() / 1_000;
  }

  public static String newSpanId() {
    return String.format("%016x", ThreadLocalRandom.current().nextLong());
  }

  /** Whether {@code m} belongs to a traced request: tracing is on and the message carries a trace id (an empty one is none). */
  public static boolean traced(Msg m) {
    return enabled && m.traceId != null && !m.traceId.isEmpty();
  }

  /** Records one function span of the request {@code m} from start to end (epoch microseconds), if tracing is on and the request is traced. */
  public static void function(Msg m, String entity, String key, long start, long end) {
    if (!traced(m)) return;
    ObjectNode span = Json.object();
    span.put("sfbench", "span");
    span.put("traceId", m.traceId);
    span.put("spanId", newSpanId());
    if (m.parentSpan != null) span.put("parentId", m.parentSpan);
    else span.putNull("parentId");
    span.put("kind", "function");
    span.put("entity", entity);
    span.put("op", m.op());
    span.put("key", key);
    span.put("start", start);
    span.put("end", Math.max(start, end));
    QUEUE.add(Json.write(span));
  }

  private static void drainForever() {
    while (true) {
      drain();
      try {
        Thread.sleep(5);
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  private static final FileOutputStream OUT = new FileOutputStream(FileDescriptor.out);

  private static synchronized void drain() {
    StringBuilder batch = new StringBuilder();
    String line;
    while (batch.length() < (1 << 20) && (line = QUEUE.poll()) != null) batch.append(line).append('\n');
    if (batch.length() == 0) return;
    try {
      OUT.write(batch.toString().getBytes(StandardCharsets.UTF_8));
    } catch (IOException e) {
      // stdout is gone (the launcher died): nothing left to report spans to
    }
  }
}
