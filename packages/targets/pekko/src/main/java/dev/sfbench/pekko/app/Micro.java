package dev.sfbench.pekko.app;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.HexFormat;
import java.util.SplittableRandom;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.cluster.sharding.typed.javadsl.EntityTypeKey;
import org.apache.pekko.persistence.typed.javadsl.CommandHandler;
import org.apache.pekko.persistence.typed.javadsl.EventHandler;
import org.apache.pekko.persistence.typed.javadsl.EventSourcedBehavior;
import org.apache.pekko.persistence.typed.javadsl.RetentionCriteria;

/**
 * The invocation-overhead entity of SPEC 8 (empty, math, sleep, io), keyed by
 * ?key=. It is event-sourced like the shop's entities, so /micro/io writes its
 * payload through the same journal (PostgreSQL) before it answers.
 */
public final class Micro extends EventSourcedBehavior<Micro.Command, Micro.Event, Micro.State> {
  public static final EntityTypeKey<Command> KEY = EntityTypeKey.create(Command.class, "micro");

  public interface Command extends Wire {}

  public record Empty(ActorRef<Reply> replyTo) implements Command {}

  public record MonteCarlo(long n, ActorRef<Reply> replyTo) implements Command {}

  public record Sleep(long ms, ActorRef<Reply> replyTo) implements Command {}

  public record Io(String key, int bytes, ActorRef<Reply> replyTo) implements Command {}

  /** The end of a sleep: sent by the entity to itself. */
  record Woke(long ms, long startNs, ActorRef<Reply> replyTo) implements Command {}

  public interface Event extends Wire {}

  public record Written(String payload) implements Event {}

  public static final class State implements Wire {
    public String payload = "";
  }

  private static final String ALPHABET = "abcdefghijklmnopqrstuvwxyz";
  private final ActorContext<Command> ctx;

  private Micro(String id, ActorContext<Command> ctx) {
    super(Journal.id(KEY.name(), id));
    this.ctx = ctx;
  }

  public static Behavior<Command> create(String id) {
    return Behaviors.setup(ctx -> new Micro(id, ctx));
  }

  @Override
  public State emptyState() {
    return new State();
  }

  /** Only the newest payload matters: keep the journal of an io key short. */
  @Override
  public RetentionCriteria retentionCriteria() {
    return RetentionCriteria.snapshotEvery(Tuning.IO_SNAPSHOT_EVERY, 1).withDeleteEventsOnSnapshot();
  }

  @Override
  public CommandHandler<Command, Event, State> commandHandler() {
    return newCommandHandlerBuilder()
        .forAnyState()
        .onCommand(Empty.class, (s, c) -> {
          long start = System.nanoTime();
          return Effect().reply(c.replyTo(), Reply.ok(Json.object().put("handlerNs", System.nanoTime() - start)));
        })
        .onCommand(MonteCarlo.class, (s, c) -> {
          long start = System.nanoTime();
          SplittableRandom random = new SplittableRandom();
          long inside = 0;
          for (long i = 0; i < c.n(); i++) {
            double x = random.nextDouble();
            double y = random.nextDouble();
            if (x * x + y * y <= 1) inside++;
          }
          double pi = 4.0 * inside / c.n();
          return Effect().reply(c.replyTo(), Reply.ok(Json.object().put("n", c.n()).put("pi", pi).put("handlerNs", System.nanoTime() - start)));
        })
        .onCommand(Sleep.class, (s, c) -> {
          ctx.scheduleOnce(Duration.ofMillis(c.ms()), ctx.getSelf(), new Woke(c.ms(), System.nanoTime(), c.replyTo()));
          return Effect().none();
        })
        .onCommand(Woke.class, (s, c) -> Effect().reply(c.replyTo(), Reply.ok(Json.object().put("ms", c.ms()).put("handlerNs", System.nanoTime() - c.startNs()))))
        .onCommand(Io.class, (s, c) -> {
          long start = System.nanoTime();
          StringBuilder payload = new StringBuilder(c.bytes());
          for (int i = 0; i < c.bytes(); i++) payload.append(ALPHABET.charAt(i % ALPHABET.length()));
          return Effect()
              .persist(new Written(payload.toString()))
              .thenReply(c.replyTo(), ns -> Reply.ok(Json.object().put("key", c.key()).put("bytes", ns.payload.length()).put("sha256", sha256(ns.payload)).put("handlerNs", System.nanoTime() - start)));
        })
        .build();
  }

  static String sha256(String text) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.US_ASCII)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  @Override
  public EventHandler<State, Event> eventHandler() {
    return newEventHandlerBuilder()
        .forAnyState()
        .onEvent(Written.class, (s, e) -> {
          State next = new State();
          next.payload = e.payload();
          return next;
        })
        .build();
  }
}
