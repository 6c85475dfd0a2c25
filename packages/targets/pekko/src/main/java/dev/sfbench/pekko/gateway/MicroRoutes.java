package dev.sfbench.pekko.gateway;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sfbench.pekko.app.Big;
import dev.sfbench.pekko.app.Divide;
import dev.sfbench.pekko.app.Json;
import dev.sfbench.pekko.app.Micro;
import dev.sfbench.pekko.app.PingPong;
import dev.sfbench.pekko.app.Reply;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.Props;
import org.apache.pekko.actor.typed.SpawnProtocol;
import org.apache.pekko.cluster.sharding.typed.javadsl.ClusterSharding;

/**
 * The SPEC 8 routes. Every request has a budget after which it is answered
 * 503: the entity ask timeout plus a share per unit of work. The shares are
 * several times what the largest requests took on this 2-core machine under
 * a load average above 20 (divide 1,000,000 items and big 10,000 x 1,000,000
 * both within seconds), so a 503 means a lost message or a dead member, not
 * a slow machine.
 */
public final class MicroRoutes {
  /** math: per 1000 samples */
  private static final long MATH_MS_PER_1000 = 1;
  /** divide: per 10 items */
  private static final long DIVIDE_ITEMS_PER_MS = 10;
  /** big: per 10 messages, and per entity */
  private static final long BIG_MESSAGES_PER_MS = 10;
  private static final long BIG_MS_PER_ENTITY = 1;
  /** pingpong: per round trip of every pair (two remote messages) */
  private static final long PINGPONG_MS_PER_ROUND_TRIP = 2;

  private final ActorSystem<SpawnProtocol.Command> system;
  private final ClusterSharding sharding;
  private final Duration timeout;

  public MicroRoutes(ActorSystem<SpawnProtocol.Command> system, ClusterSharding sharding, Duration timeout) {
    this.system = system;
    this.sharding = sharding;
    this.timeout = timeout;
  }

  public List<Route> routes() {
    return List.of(
        Route.of("GET", "/micro/empty", null, "micro.empty", r -> micro(r).ask(Micro.Empty::new, timeout)),
        Route.of("GET", "/micro/math", null, "micro.math", r -> {
          long n = Validate.query(r.param("n"), "n", 1, 10_000_000, 1000);
          return micro(r).ask(to -> new Micro.MonteCarlo(n, to), timeout.plusMillis(n / 1000 * MATH_MS_PER_1000));
        }),
        Route.of("GET", "/micro/sleep", null, "micro.sleep", r -> {
          long ms = Validate.query(r.param("ms"), "ms", 0, 10_000, 100);
          return micro(r).ask(to -> new Micro.Sleep(ms, to), timeout.plusMillis(ms));
        }),
        Route.of("POST", "/micro/io", null, "micro.io", r -> {
          JsonNode body = Validate.object(r.body(), false);
          String key = Validate.idField(body, "key");
          int bytes = (int) (long) Validate.integer(body, "bytes", 1, 1_048_576, true).get();
          return sharding.entityRefFor(Micro.KEY, key).ask(to -> new Micro.Io(key, bytes, to), timeout);
        }),
        Route.of("POST", "/micro/pingpong", null, "micro.pingpong", this::pingpong),
        Route.of("POST", "/micro/divide", null, "micro.divide", r -> {
          JsonNode body = Validate.object(r.body(), false);
          int items = (int) (long) Validate.integer(body, "items", 1, 1_000_000, true).get();
          int fanout = (int) (long) Validate.integer(body, "fanout", 2, 16, true).get();
          int leaf = (int) (long) Validate.integer(body, "leaf", 16, 100_000, false).orElse(1000L);
          long seed = Validate.integer(body, "seed", 0, Validate.MAX_INT, true).get();
          CompletableFuture<Reply> answer = new CompletableFuture<>();
          spawn(Divide.root(items, fanout, leaf, seed, answer));
          return answer.orTimeout(timeout.toMillis() + items / DIVIDE_ITEMS_PER_MS, java.util.concurrent.TimeUnit.MILLISECONDS);
        }),
        Route.of("POST", "/micro/big", null, "micro.big", r -> {
          JsonNode body = Validate.object(r.body(), false);
          int entities = (int) (long) Validate.integer(body, "entities", 2, 10_000, true).get();
          long messages = Validate.integer(body, "messages", 1, 1_000_000, true).get();
          long seed = Validate.integer(body, "seed", 0, Validate.MAX_INT, true).get();
          CompletableFuture<Reply> answer = new CompletableFuture<>();
          spawn(Big.root(entities, messages, seed, answer));
          return answer.orTimeout(timeout.toMillis() + messages / BIG_MESSAGES_PER_MS + entities * BIG_MS_PER_ENTITY, java.util.concurrent.TimeUnit.MILLISECONDS);
        }));
  }

  private org.apache.pekko.cluster.sharding.typed.javadsl.EntityRef<Micro.Command> micro(Request r) {
    String key = Validate.id("key", r.param("key").orElse("micro"));
    return sharding.entityRefFor(Micro.KEY, key);
  }

  private <T> void spawn(Behavior<T> behavior) {
    system.tell(new SpawnProtocol.Spawn<>(behavior, "", Props.empty(), system.ignoreRef()));
  }

  /** Every pair runs at once; the answer merges their histograms (SPEC 8's fixed bounds, then the open bucket). */
  private CompletionStage<Reply> pingpong(Request r) {
    JsonNode body = Validate.object(r.body(), false);
    int pairs = (int) (long) Validate.integer(body, "pairs", 1, 64, true).get();
    int messages = (int) (long) Validate.integer(body, "messages", 1, 100_000, true).get();
    int bytes = (int) (long) Validate.integer(body, "bytes", 0, 65_536, true).get();
    byte[] payload = new byte[bytes];
    Arrays.fill(payload, (byte) 'x');
    String runId = UUID.randomUUID().toString();
    Duration budget = timeout.plusMillis((long) pairs * messages * PINGPONG_MS_PER_ROUND_TRIP);
    long start = System.nanoTime();
    List<CompletableFuture<Reply>> runs = new ArrayList<>();
    for (int i = 0; i < pairs; i++) {
      String pong = "pong-" + i;
      runs.add(sharding.entityRefFor(PingPong.KEY, "ping-" + i).<Reply>ask(to -> new PingPong.Run(runId, pong, messages, payload, to), budget).toCompletableFuture());
    }
    return CompletableFuture.allOf(runs.toArray(CompletableFuture[]::new)).thenApply(v -> {
      long totalNs = System.nanoTime() - start;
      long[] counts = new long[PingPong.BOUNDS.length + 1];
      long done = 0;
      long handlerNs = 0;
      for (var run : runs) {
        Reply one = run.join();
        if (!one.isOk()) return one;
        done += one.body().get("messages").asLong();
        handlerNs += one.body().get("handlerNs").asLong();
        for (int b = 0; b < counts.length; b++) counts[b] += one.body().get("counts").get(b).asLong();
      }
      var histogram = Json.array();
      for (int b = 0; b < counts.length; b++) {
        var bucket = Json.array();
        if (b < PingPong.BOUNDS.length) bucket.add(PingPong.BOUNDS[b]);
        else bucket.addNull();
        histogram.add(bucket.add(counts[b]));
      }
      return Reply.ok(Json.object().put("pairs", pairs).put("messages", done).put("bytes", bytes).put("totalNs", totalNs).<com.fasterxml.jackson.databind.node.ObjectNode>set("histogram", histogram).put("handlerNs", handlerNs));
    });
  }
}
