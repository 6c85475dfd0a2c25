package dev.sfbench.pekko.app;

import java.util.HashMap;
import java.util.Map;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.cluster.sharding.typed.javadsl.ClusterSharding;
import org.apache.pekko.cluster.sharding.typed.javadsl.EntityTypeKey;

/**
 * The pingpong entities of SPEC 8: `ping-i` sends `messages` round trips to
 * `pong-i`, one after another, through cluster sharding (the pong may live on
 * another member); pong answers to the ping's actor reference. Several runs
 * may share a pair: each is kept apart by its run id.
 */
public final class PingPong {
  public static final EntityTypeKey<Command> KEY = EntityTypeKey.create(Command.class, "peer");

  /** Upper bounds of the round-trip histogram: 1, 2, 5 x 10^k ns for k = 3..9. */
  public static final long[] BOUNDS = bounds();

  private PingPong() {}

  private static long[] bounds() {
    long[] out = new long[21];
    long scale = 1000;
    for (int k = 0; k < 7; k++, scale *= 10) {
      out[3 * k] = scale;
      out[3 * k + 1] = 2 * scale;
      out[3 * k + 2] = 5 * scale;
    }
    return out;
  }

  public interface Command extends Wire {}

  /** To ping-i: run `messages` round trips with pong-i; answered with {counts, totalNs, handlerNs}. */
  public record Run(String runId, String pong, int messages, byte[] payload, ActorRef<Reply> replyTo) implements Command {}

  public record Ping(String runId, byte[] payload, ActorRef<Command> from) implements Command {}

  public record Pong(String runId, byte[] payload, long pongNs) implements Command {}

  private static final class RunState {
    final Run run;
    final long[] counts = new long[BOUNDS.length + 1];
    int done;
    long sentAt;
    long firstAt;
    long handlerNs;

    RunState(Run run) {
      this.run = run;
    }
  }

  public static Behavior<Command> create(String id) {
    return Behaviors.setup(ctx -> {
      ClusterSharding sharding = ClusterSharding.get(ctx.getSystem());
      Map<String, RunState> runs = new HashMap<>();
      return Behaviors.receive(Command.class)
          .onMessage(Run.class, run -> {
            long start = System.nanoTime();
            RunState state = new RunState(run);
            runs.put(run.runId(), state);
            state.firstAt = System.nanoTime();
            state.sentAt = state.firstAt;
            sharding.entityRefFor(KEY, run.pong()).tell(new Ping(run.runId(), run.payload(), ctx.getSelf()));
            state.handlerNs += System.nanoTime() - start;
            return Behaviors.same();
          })
          .onMessage(Ping.class, ping -> {
            long start = System.nanoTime();
            // pong's time is its own handler's, carried back so that ping can count it
            ping.from().tell(new Pong(ping.runId(), ping.payload(), System.nanoTime() - start));
            return Behaviors.same();
          })
          .onMessage(Pong.class, pong -> {
            long start = System.nanoTime();
            RunState state = runs.get(pong.runId());
            if (state == null) return Behaviors.same();
            long rtt = start - state.sentAt;
            int bucket = 0;
            while (bucket < BOUNDS.length && rtt > BOUNDS[bucket]) bucket++;
            state.counts[bucket]++;
            state.done++;
            state.handlerNs += pong.pongNs();
            if (state.done < state.run.messages()) {
              state.sentAt = System.nanoTime();
              sharding.entityRefFor(KEY, state.run.pong()).tell(new Ping(pong.runId(), state.run.payload(), ctx.getSelf()));
              state.handlerNs += System.nanoTime() - start;
              return Behaviors.same();
            }
            runs.remove(pong.runId());
            long totalNs = System.nanoTime() - state.firstAt;
            state.handlerNs += System.nanoTime() - start;
            var counts = Json.array();
            for (long c : state.counts) counts.add(c);
            state.run.replyTo().tell(Reply.ok(Json.object().put("messages", state.done).put("totalNs", totalNs).put("handlerNs", state.handlerNs).set("counts", counts)));
            return Behaviors.same();
          })
          .build();
    });
  }
}
