package dev.sfbench.pekko.app;

import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.cluster.sharding.typed.javadsl.EntityTypeKey;
import org.apache.pekko.persistence.typed.javadsl.CommandHandler;
import org.apache.pekko.persistence.typed.javadsl.EventHandler;
import org.apache.pekko.persistence.typed.javadsl.EventSourcedBehavior;
import org.apache.pekko.persistence.typed.javadsl.RetentionCriteria;

/**
 * A shopping cart, event-sourced. A checkout first locks the cart for its
 * order (Begin): while one order holds it, other checkouts and additions are
 * refused with 409 cart-checked-out, so a cart is charged at most once. The
 * order then completes or releases it.
 */
public final class Cart extends EventSourcedBehavior<Cart.Command, Cart.Event, Cart.State> {
  public static final EntityTypeKey<Command> KEY = EntityTypeKey.create(Command.class, "cart");

  public interface Command extends Wire {}

  public record Create(Trace trace, ActorRef<Reply> replyTo) implements Command {}

  public record Get(Trace trace, ActorRef<Reply> replyTo) implements Command {}

  public record Add(String productId, long amount, Trace trace, ActorRef<Reply> replyTo) implements Command {}

  /** Locks the cart for `orderId` and answers its items as [{productId, amount}]; asked again by the same order, answers the same. */
  public record Begin(String orderId, Trace trace, ActorRef<Reply> replyTo) implements Command {}

  public record Complete(String orderId, Trace trace, ActorRef<Reply> replyTo) implements Command {}

  public record Release(String orderId, Trace trace, ActorRef<Reply> replyTo) implements Command {}

  public interface Event extends Wire {}

  public record Created() implements Event {}

  public record Added(String productId, long amount) implements Event {}

  public record Locked(String orderId) implements Event {}

  public record CheckedOut(String orderId) implements Event {}

  public record Released(String orderId) implements Event {}

  public static final class State implements Wire {
    public boolean exists;
    public LinkedHashMap<String, Long> items = new LinkedHashMap<>();
    public boolean checkedOut;
    /** the order whose checkout holds the cart, null when none */
    public String lockedBy;
  }

  private final String id;

  private Cart(String id) {
    super(Journal.id(KEY.name(), id));
    this.id = id;
  }

  public static Behavior<Command> create(String id) {
    return new Cart(id);
  }

  @Override
  public State emptyState() {
    return new State();
  }

  @Override
  public RetentionCriteria retentionCriteria() {
    return RetentionCriteria.snapshotEvery(Tuning.SNAPSHOT_EVERY, 2);
  }

  private com.fasterxml.jackson.databind.node.ArrayNode items(State s) {
    var out = Json.array();
    for (Map.Entry<String, Long> e : s.items.entrySet()) out.add(Json.object().put("productId", e.getKey()).put("amount", e.getValue()));
    return out;
  }

  @Override
  public CommandHandler<Command, Event, State> commandHandler() {
    return newCommandHandlerBuilder()
        .forAnyState()
        .onCommand(Create.class, (s, c) -> {
          long start = Spans.nowMicros();
          return Effect().persist(new Created()).thenRun(ns -> Spans.function(c.trace(), "cart", "create", id, start)).thenReply(c.replyTo(), ns -> Reply.ok());
        })
        .onCommand(Get.class, (s, c) -> {
          Spans.function(c.trace(), "cart", "get", id, Spans.nowMicros());
          if (!s.exists) return Effect().reply(c.replyTo(), Reply.notFound("cart " + id));
          return Effect().reply(c.replyTo(), Reply.ok(Json.object().put("id", id).<com.fasterxml.jackson.databind.node.ObjectNode>set("items", items(s)).put("checkedOut", s.checkedOut)));
        })
        .onCommand(Add.class, (s, c) -> {
          long start = Spans.nowMicros();
          if (!s.exists) return Effect().reply(c.replyTo(), Reply.notFound("cart " + id));
          if (s.checkedOut || s.lockedBy != null) return Effect().reply(c.replyTo(), Reply.conflict("cart-checked-out", "cart " + id + " is checked out"));
          return Effect().persist(new Added(c.productId(), c.amount())).thenRun(ns -> Spans.function(c.trace(), "cart", "addProduct", id, start)).thenReply(c.replyTo(), ns -> Reply.ok());
        })
        .onCommand(Begin.class, (s, c) -> {
          long start = Spans.nowMicros();
          if (!s.exists) return Effect().reply(c.replyTo(), Reply.notFound("cart " + id));
          if (c.orderId().equals(s.lockedBy)) return Effect().reply(c.replyTo(), Reply.ok(items(s)));
          if (s.checkedOut || s.lockedBy != null) return Effect().reply(c.replyTo(), Reply.conflict("cart-checked-out", "cart " + id + " is checked out"));
          if (s.items.isEmpty()) return Effect().reply(c.replyTo(), Reply.conflict("empty-cart", "cart " + id + " is empty"));
          return Effect().persist(new Locked(c.orderId())).thenRun(ns -> Spans.function(c.trace(), "cart", "checkout", id, start)).thenReply(c.replyTo(), ns -> Reply.ok(items(ns)));
        })
        .onCommand(Complete.class, (s, c) -> {
          long start = Spans.nowMicros();
          if (!c.orderId().equals(s.lockedBy)) return Effect().reply(c.replyTo(), Reply.ok());
          return Effect().persist(new CheckedOut(c.orderId())).thenRun(ns -> Spans.function(c.trace(), "cart", "checkedOut", id, start)).thenReply(c.replyTo(), ns -> Reply.ok());
        })
        .onCommand(Release.class, (s, c) -> {
          long start = Spans.nowMicros();
          if (!c.orderId().equals(s.lockedBy)) return Effect().reply(c.replyTo(), Reply.ok());
          return Effect().persist(new Released(c.orderId())).thenRun(ns -> Spans.function(c.trace(), "cart", "release", id, start)).thenReply(c.replyTo(), ns -> Reply.ok());
        })
        .build();
  }

  @Override
  public EventHandler<State, Event> eventHandler() {
    return newEventHandlerBuilder()
        .forAnyState()
        .onEvent(Created.class, (s, e) -> {
          s.exists = true;
          return s;
        })
        .onEvent(Added.class, (s, e) -> {
          s.items.merge(e.productId(), e.amount(), Long::sum);
          return s;
        })
        .onEvent(Locked.class, (s, e) -> {
          s.lockedBy = e.orderId();
          return s;
        })
        .onEvent(CheckedOut.class, (s, e) -> {
          s.checkedOut = true;
          s.lockedBy = null;
          return s;
        })
        .onEvent(Released.class, (s, e) -> {
          s.lockedBy = null;
          return s;
        })
        .build();
  }
}
