package dev.sfbench.pekko.app;

import java.util.HashSet;
import java.util.Set;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.cluster.sharding.typed.javadsl.EntityTypeKey;
import org.apache.pekko.persistence.typed.javadsl.CommandHandler;
import org.apache.pekko.persistence.typed.javadsl.EventHandler;
import org.apache.pekko.persistence.typed.javadsl.EventSourcedBehavior;
import org.apache.pekko.persistence.typed.javadsl.RetentionCriteria;

/** A user and its credits, event-sourced; a checkout charges it once per order id. */
public final class User extends EventSourcedBehavior<User.Command, User.Event, User.State> {
  public static final EntityTypeKey<Command> KEY = EntityTypeKey.create(Command.class, "user");

  public interface Command extends Wire {}

  public record Create(long credits, Trace trace, ActorRef<Reply> replyTo) implements Command {}

  public record Get(Trace trace, ActorRef<Reply> replyTo) implements Command {}

  public record AddCredits(long credits, Trace trace, ActorRef<Reply> replyTo) implements Command {}

  public record Charge(String orderId, long total, Trace trace, ActorRef<Reply> replyTo) implements Command {}

  public interface Event extends Wire {}

  public record Created(long credits) implements Event {}

  public record CreditsAdded(long credits) implements Event {}

  public record Charged(String orderId, long total) implements Event {}

  public static final class State implements Wire {
    public boolean exists;
    public long credits;
    public Set<String> charged = new HashSet<>();
  }

  private final String id;

  private User(String id) {
    super(Journal.id(KEY.name(), id));
    this.id = id;
  }

  public static Behavior<Command> create(String id) {
    return new User(id);
  }

  @Override
  public State emptyState() {
    return new State();
  }

  @Override
  public RetentionCriteria retentionCriteria() {
    return RetentionCriteria.snapshotEvery(Tuning.SNAPSHOT_EVERY, 2);
  }

  @Override
  public CommandHandler<Command, Event, State> commandHandler() {
    return newCommandHandlerBuilder()
        .forAnyState()
        .onCommand(Create.class, (s, c) -> {
          long start = Spans.nowMicros();
          return Effect().persist(new Created(c.credits())).thenRun(ns -> Spans.function(c.trace(), "user", "create", id, start)).thenReply(c.replyTo(), ns -> Reply.ok());
        })
        .onCommand(Get.class, (s, c) -> {
          Spans.function(c.trace(), "user", "get", id, Spans.nowMicros());
          return Effect().reply(c.replyTo(), s.exists ? Reply.ok(Json.object().put("id", id).put("credits", s.credits)) : Reply.notFound("user " + id));
        })
        .onCommand(AddCredits.class, (s, c) -> {
          long start = Spans.nowMicros();
          if (!s.exists) return Effect().reply(c.replyTo(), Reply.notFound("user " + id));
          return Effect().persist(new CreditsAdded(c.credits())).thenRun(ns -> Spans.function(c.trace(), "user", "addCredits", id, start)).thenReply(c.replyTo(), ns -> Reply.ok());
        })
        .onCommand(Charge.class, (s, c) -> {
          long start = Spans.nowMicros();
          if (!s.exists) return Effect().reply(c.replyTo(), Reply.notFound("user " + id));
          if (s.charged.contains(c.orderId())) return Effect().reply(c.replyTo(), Reply.ok());
          if (s.credits < c.total()) {
            Spans.function(c.trace(), "user", "retractCredits", id, start);
            return Effect().reply(c.replyTo(), Reply.conflict("insufficient-credits", "user " + id + " has " + s.credits + " credits, the order costs " + c.total()));
          }
          return Effect().persist(new Charged(c.orderId(), c.total())).thenRun(ns -> Spans.function(c.trace(), "user", "retractCredits", id, start)).thenReply(c.replyTo(), ns -> Reply.ok());
        })
        .build();
  }

  @Override
  public EventHandler<State, Event> eventHandler() {
    return newEventHandlerBuilder()
        .forAnyState()
        .onEvent(Created.class, (s, e) -> {
          s.exists = true;
          s.credits = e.credits();
          return s;
        })
        .onEvent(CreditsAdded.class, (s, e) -> {
          s.credits += e.credits();
          return s;
        })
        .onEvent(Charged.class, (s, e) -> {
          s.credits -= e.total();
          s.charged.add(e.orderId());
          return s;
        })
        .build();
  }
}
