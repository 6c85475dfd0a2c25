package dev.sfbench.pekko.app;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/**
 * /micro/big (SPEC 8): `entities` actors send `messages` one-way messages in
 * all, each sender its even share, each message to another actor chosen by a
 * generator seeded with (seed, sender). Every actor counts what it receives
 * and reports once it has what the root expects of it (the root replays the
 * same generators), so the answer comes when every message has arrived. The
 * actors are children of the request's root actor on the member that took the
 * request: ten thousand short-lived entities per request would otherwise be
 * ten thousand sharding allocations.
 */
public final class Big {
  private Big() {}

  /** The messages between the request's actors (local only). */
  public interface Msg {}

  private record Start(List<ActorRef<Msg>> peers, int index, long share, long seed, long expected, ActorRef<Msg> root) implements Msg {}

  private record Hello() implements Msg {}

  private record Received(long count, long handlerNs) implements Msg {}

  private static int target(SplittableRandom random, int self, int n) {
    int t = random.nextInt(n - 1);
    return t >= self ? t + 1 : t;
  }

  public static Behavior<Msg> root(int entities, long messages, long seed, CompletableFuture<Reply> answer) {
    return Behaviors.<Msg>setup(ctx -> {
          long started = System.nanoTime();
          long[] expected = new long[entities];
          long[] shares = new long[entities];
          for (int i = 0; i < entities; i++) {
            shares[i] = messages / entities + (i < messages % entities ? 1 : 0);
            SplittableRandom random = new SplittableRandom(seed * 1_000_003L + i);
            for (long m = 0; m < shares[i]; m++) expected[target(random, i, entities)]++;
          }
          List<ActorRef<Msg>> peers = new ArrayList<>(entities);
          for (int i = 0; i < entities; i++) peers.add(ctx.spawnAnonymous(peer()));
          for (int i = 0; i < entities; i++) peers.get(i).tell(new Start(peers, i, shares[i], seed * 1_000_003L + i, expected[i], ctx.getSelf()));
          long[] delivered = {0};
          long[] handlerNs = {0};
          int[] reported = {0};
          return Behaviors.receive(Msg.class)
              .onMessage(Received.class, r -> {
                delivered[0] += r.count();
                handlerNs[0] += r.handlerNs();
                if (++reported[0] < entities) return Behaviors.same();
                answer.complete(Reply.ok(Json.object().put("entities", entities).put("messages", messages).put("delivered", delivered[0]).put("totalNs", System.nanoTime() - started).put("handlerNs", handlerNs[0])));
                return Behaviors.stopped();
              })
              .build();
        });
  }

  private static Behavior<Msg> peer() {
    long[] count = {0};
    long[] expected = {-1};
    long[] handlerNs = {0};
    ActorRef<Msg>[] root = new ActorRef[1];
    return Behaviors.receive(Msg.class)
        .onMessage(Start.class, s -> {
          long start = System.nanoTime();
          root[0] = s.root();
          expected[0] = s.expected();
          SplittableRandom random = new SplittableRandom(s.seed());
          int n = s.peers().size();
          for (long m = 0; m < s.share(); m++) s.peers().get(target(random, s.index(), n)).tell(new Hello());
          handlerNs[0] += System.nanoTime() - start;
          return report(count, expected, handlerNs, root);
        })
        .onMessage(Hello.class, h -> {
          long start = System.nanoTime();
          count[0]++;
          handlerNs[0] += System.nanoTime() - start;
          return report(count, expected, handlerNs, root);
        })
        .build();
  }

  /** Reports to the root once everything expected has arrived (messages may come before Start). */
  private static Behavior<Msg> report(long[] count, long[] expected, long[] handlerNs, ActorRef<Msg>[] root) {
    if (expected[0] < 0 || count[0] < expected[0]) return Behaviors.same();
    root[0].tell(new Received(count[0], handlerNs[0]));
    return Behaviors.stopped();
  }
}
