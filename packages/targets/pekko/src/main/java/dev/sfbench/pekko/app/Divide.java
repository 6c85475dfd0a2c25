package dev.sfbench.pekko.app;

import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/**
 * /micro/divide (SPEC 8): a tree of actors. Each one takes its slice, splits
 * it into `fanout` parts that differ by at most one item and spawns a child
 * actor per part, until a slice has at most `leaf` items; leaves sort, parents
 * merge what their children answer. The actors are children of the request's
 * root actor (Pekko's own hierarchy and messaging), on the member that took
 * the request: a slice is up to 1,000,000 integers, more than one remoting
 * frame.
 */
public final class Divide {
  private Divide() {}

  /** The messages between the request's actors (local only). */
  public interface Msg {}

  private record Slice(int[] values, int index, ActorRef<Msg> parent) implements Msg {}

  private record Sorted(int index, int[] values, int entities, long handlerNs) implements Msg {}

  /** The root: generates the input (SPEC 8's generator) and answers `answer` when the tree has sorted it. */
  public static Behavior<Msg> root(int items, int fanout, int leaf, long seed, CompletableFuture<Reply> answer) {
    return Behaviors.<Msg>setup(ctx -> {
          long started = System.nanoTime();
          int[] values = new int[items];
          long x = seed;
          for (int i = 0; i < items; i++) {
            x = (1103515245L * x + 12345L) % 2147483648L;
            values[i] = (int) (x % 1_000_000);
          }
          ctx.spawnAnonymous(node(fanout, leaf)).tell(new Slice(values, 0, ctx.getSelf()));
          return Behaviors.receive(Msg.class)
              .onMessage(Sorted.class, done -> {
                int[] sorted = done.values();
                long checksum = 0;
                for (int i = 0; i < sorted.length; i++) checksum = (checksum + (long) sorted[i] * (i + 1)) % 2147483647L;
                answer.complete(Reply.ok(Json.object().put("items", items).put("first", sorted[0]).put("last", sorted[sorted.length - 1]).put("checksum", checksum).put("entities", done.entities()).put("totalNs", System.nanoTime() - started).put("handlerNs", done.handlerNs())));
                return Behaviors.stopped();
              })
              .build();
        });
  }

  private static Behavior<Msg> node(int fanout, int leaf) {
    return Behaviors.setup(ctx -> Behaviors.receive(Msg.class)
        .onMessage(Slice.class, slice -> {
          long start = System.nanoTime();
          int[] values = slice.values();
          if (values.length <= leaf) {
            int[] sorted = values.clone();
            Arrays.sort(sorted);
            slice.parent().tell(new Sorted(slice.index(), sorted, 1, System.nanoTime() - start));
            return Behaviors.stopped();
          }
          int base = values.length / fanout;
          int extra = values.length % fanout;
          int from = 0;
          for (int i = 0; i < fanout; i++) {
            int size = base + (i < extra ? 1 : 0);
            ctx.spawnAnonymous(node(fanout, leaf)).tell(new Slice(Arrays.copyOfRange(values, from, from + size), i, ctx.getSelf()));
            from += size;
          }
          return merging(slice, fanout, System.nanoTime() - start);
        })
        .build());
  }

  private static Behavior<Msg> merging(Slice slice, int fanout, long ownNs) {
    int[][] parts = new int[fanout][];
    int[] entities = {1};
    long[] handlerNs = {ownNs};
    int[] received = {0};
    return Behaviors.receive(Msg.class)
        .onMessage(Sorted.class, part -> {
          parts[part.index()] = part.values();
          entities[0] += part.entities();
          handlerNs[0] += part.handlerNs();
          if (++received[0] < fanout) return Behaviors.same();
          long start = System.nanoTime();
          int[] merged = merge(parts);
          slice.parent().tell(new Sorted(slice.index(), merged, entities[0], handlerNs[0] + System.nanoTime() - start));
          return Behaviors.stopped();
        })
        .build();
  }

  private static int[] merge(int[][] parts) {
    int total = 0;
    for (int[] p : parts) total += p.length;
    int[] out = new int[total];
    int[] at = new int[parts.length];
    for (int o = 0; o < total; o++) {
      int best = -1;
      for (int i = 0; i < parts.length; i++) if (at[i] < parts[i].length && (best < 0 || parts[i][at[i]] < parts[best][at[best]])) best = i;
      out[o] = parts[best][at[best]++];
    }
    return out;
  }
}
