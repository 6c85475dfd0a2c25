package dev.sfbench.pekko.app;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.cluster.sharding.typed.javadsl.EntityTypeKey;
import org.apache.pekko.persistence.typed.javadsl.CommandHandler;
import org.apache.pekko.persistence.typed.javadsl.EventHandler;
import org.apache.pekko.persistence.typed.javadsl.EventSourcedBehavior;
import org.apache.pekko.persistence.typed.javadsl.RetentionCriteria;

/**
 * A product: price, stock and its co-purchase counts, event-sourced. The
 * checkout saga's retractions, compensations and count updates carry the
 * order id and are applied once per order, so the saga may repeat them after
 * a crash or a lost answer.
 */
public final class Product extends EventSourcedBehavior<Product.Command, Product.Event, Product.State> {
  public static final EntityTypeKey<Command> KEY = EntityTypeKey.create(Command.class, "product");

  public interface Command extends Wire {}

  /** create: POST /products (a new id); otherwise PATCH: price set, stock added, created when missing. */
  public record Upsert(Long price, Long stock, Trace trace, ActorRef<Reply> replyTo) implements Command {}

  public record Get(Trace trace, ActorRef<Reply> replyTo) implements Command {}

  /** The n products bought most often with this one, ties by ascending id, without `exclude` (SPEC 2.2 top). */
  public record Top(int n, List<String> exclude, Trace trace, ActorRef<Reply> replyTo) implements Command {}

  public record Retract(String orderId, long amount, Trace trace, ActorRef<Reply> replyTo) implements Command {}

  public record Restock(String orderId, Trace trace, ActorRef<Reply> replyTo) implements Command {}

  public record CountPairs(String orderId, List<String> others, ActorRef<Reply> replyTo) implements Command {}

  public interface Event extends Wire {}

  public record Upserted(Long price, long stock) implements Event {}

  public record Retracted(String orderId, long amount, long price) implements Event {}

  public record Restocked(String orderId) implements Event {}

  public record Counted(String orderId, List<String> others) implements Event {}

  /** What an order retracted, at which price (answered again when the saga asks again). */
  public record Line(long amount, long price) implements Wire {}

  public static final class State implements Wire {
    public boolean exists;
    public long price;
    public long stock;
    public Map<String, Long> counts = new HashMap<>();
    public Map<String, Line> retracted = new HashMap<>();
    public Set<String> restocked = new HashSet<>();
    public Set<String> counted = new HashSet<>();
  }

  private final String id;

  private Product(String id) {
    super(Journal.id(KEY.name(), id));
    this.id = id;
  }

  public static Behavior<Command> create(String id) {
    return new Product(id);
  }

  @Override
  public State emptyState() {
    return new State();
  }

  @Override
  public RetentionCriteria retentionCriteria() {
    return RetentionCriteria.snapshotEvery(Tuning.SNAPSHOT_EVERY, 2);
  }

  private Reply view(State s) {
    return Reply.ok(Json.object().put("id", id).put("price", s.price).put("stock", s.stock));
  }

  @Override
  public CommandHandler<Command, Event, State> commandHandler() {
    return newCommandHandlerBuilder()
        .forAnyState()
        .onCommand(Upsert.class, (s, c) -> {
          long start = Spans.nowMicros();
          return Effect().persist(new Upserted(c.price(), c.stock() == null ? 0 : c.stock())).thenRun(ns -> Spans.function(c.trace(), "product", "upsert", id, start)).thenReply(c.replyTo(), ns -> Reply.ok());
        })
        .onCommand(Get.class, (s, c) -> {
          Spans.function(c.trace(), "product", "get", id, Spans.nowMicros());
          return Effect().reply(c.replyTo(), s.exists ? view(s) : Reply.notFound("product " + id));
        })
        .onCommand(Top.class, (s, c) -> {
          long start = Spans.nowMicros();
          Reply r = s.exists ? Reply.ok(top(s, c.n(), new HashSet<>(c.exclude()))) : Reply.notFound("product " + id);
          Spans.function(c.trace(), "product", "top", id, start);
          return Effect().reply(c.replyTo(), r);
        })
        .onCommand(Retract.class, (s, c) -> {
          long start = Spans.nowMicros();
          if (!s.exists) return Effect().reply(c.replyTo(), Reply.notFound("product " + id));
          Line done = s.retracted.get(c.orderId());
          if (done != null) return Effect().reply(c.replyTo(), Reply.ok(Json.object().put("price", done.price())));
          if (s.stock < c.amount()) {
            Spans.function(c.trace(), "product", "retractStock", id, start);
            return Effect().reply(c.replyTo(), Reply.conflict("insufficient-stock", "product " + id + " has " + s.stock + " in stock, " + c.amount() + " wanted"));
          }
          return Effect().persist(new Retracted(c.orderId(), c.amount(), s.price)).thenRun(ns -> Spans.function(c.trace(), "product", "retractStock", id, start)).thenReply(c.replyTo(), ns -> Reply.ok(Json.object().put("price", ns.retracted.get(c.orderId()).price())));
        })
        .onCommand(Restock.class, (s, c) -> {
          long start = Spans.nowMicros();
          if (!s.retracted.containsKey(c.orderId()) || s.restocked.contains(c.orderId())) return Effect().reply(c.replyTo(), Reply.ok());
          return Effect().persist(new Restocked(c.orderId())).thenRun(ns -> Spans.function(c.trace(), "product", "restock", id, start)).thenReply(c.replyTo(), ns -> Reply.ok());
        })
        .onCommand(CountPairs.class, (s, c) -> {
          if (s.counted.contains(c.orderId())) return Effect().reply(c.replyTo(), Reply.ok());
          return Effect().persist(new Counted(c.orderId(), c.others())).thenReply(c.replyTo(), ns -> Reply.ok());
        })
        .build();
  }

  private static com.fasterxml.jackson.databind.node.ArrayNode top(State s, int n, Set<String> exclude) {
    List<Map.Entry<String, Long>> entries = new ArrayList<>();
    for (var e : s.counts.entrySet()) if (!exclude.contains(e.getKey())) entries.add(e);
    entries.sort((a, b) -> a.getValue().equals(b.getValue()) ? a.getKey().compareTo(b.getKey()) : Long.compare(b.getValue(), a.getValue()));
    var out = Json.array();
    for (int i = 0; i < Math.min(n, entries.size()); i++) out.add(entries.get(i).getKey());
    return out;
  }

  @Override
  public EventHandler<State, Event> eventHandler() {
    return newEventHandlerBuilder()
        .forAnyState()
        .onEvent(Upserted.class, (s, e) -> {
          s.exists = true;
          if (e.price() != null) s.price = e.price();
          s.stock += e.stock();
          return s;
        })
        .onEvent(Retracted.class, (s, e) -> {
          s.stock -= e.amount();
          s.retracted.put(e.orderId(), new Line(e.amount(), e.price()));
          return s;
        })
        .onEvent(Restocked.class, (s, e) -> {
          s.stock += s.retracted.get(e.orderId()).amount();
          s.restocked.add(e.orderId());
          return s;
        })
        .onEvent(Counted.class, (s, e) -> {
          for (String other : e.others()) s.counts.merge(other, 1L, Long::sum);
          s.counted.add(e.orderId());
          return s;
        })
        .build();
  }
}
