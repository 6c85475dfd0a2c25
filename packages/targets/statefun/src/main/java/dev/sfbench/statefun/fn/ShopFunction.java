package dev.sfbench.statefun.fn;

import dev.sfbench.statefun.Ids;
import dev.sfbench.statefun.Json;
import dev.sfbench.statefun.Msg;
import dev.sfbench.statefun.Reply;
import dev.sfbench.statefun.Spans;
import org.apache.flink.statefun.sdk.Context;
import org.apache.flink.statefun.sdk.StatefulFunction;

/**
 * The common part of the entity functions: dispatch on the message type, a
 * function span per invocation, and answers to the gateway through the egress.
 */
public abstract class ShopFunction implements StatefulFunction {
  /**
   * When this invocation handed its answer to the egress (epoch microseconds,
   * 0: none). The span ends there: the gateway may receive the answer and end
   * its own span before this thread, descheduled on a busy core, reads the
   * clock again, and a function span must not end after its caller's.
   */
  private static final ThreadLocal<long[]> ANSWERED = ThreadLocal.withInitial(() -> new long[1]);

  /** the span's entity (SPEC 3), or null for a function that is not an entity of SPEC 2 */
  private final String entity;

  protected ShopFunction(String entity) {
    this.entity = entity;
  }

  @Override
  public final void invoke(Context context, Object input) {
    Msg m = (Msg) input;
    // an untraced request (tracing off, or not sampled) reads no clock and writes no span
    if (entity == null || !Spans.traced(m)) {
      handle(context, m);
      return;
    }
    long[] answered = ANSWERED.get();
    answered[0] = 0;
    long start = Spans.now();
    handle(context, m);
    long end = answered[0] != 0 ? answered[0] : Spans.now();
    Spans.function(m, entity, context.self().id(), start, end);
  }

  protected abstract void handle(Context c, Msg m);

  /** Sends the request's answer to the egress (only messages that carry a correlation id have one). */
  protected static void answer(Context c, Msg m, int status, String body) {
    if (m.corr == null) return;
    if (Spans.traced(m)) ANSWERED.get()[0] = Spans.now();
    c.send(Ids.REPLIES, new Reply(m.corr, status, body));
  }

  protected static void ok(Context c, Msg m, Object value) {
    answer(c, m, 200, value == null ? null : Json.write(value));
  }

  protected static void fail(Context c, Msg m, int status, String code, String message) {
    answer(c, m, status, Json.error(code, message));
  }

  protected static long or0(Long value) {
    return value == null ? 0 : value;
  }

  /** A message type this function does not handle: a bug in the job, answered as one. */
  protected static void unknown(Context c, Msg m) {
    fail(c, m, 500, "internal", "function " + c.self().type().name() + " cannot handle " + m.type);
  }
}
