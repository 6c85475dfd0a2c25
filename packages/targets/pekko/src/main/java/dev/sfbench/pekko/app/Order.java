package dev.sfbench.pekko.app;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.cluster.sharding.typed.javadsl.ClusterSharding;
import org.apache.pekko.cluster.sharding.typed.javadsl.EntityTypeKey;
import org.apache.pekko.persistence.typed.RecoveryCompleted;
import org.apache.pekko.persistence.typed.SnapshotSelectionCriteria;
import org.apache.pekko.persistence.typed.javadsl.Recovery;
import org.apache.pekko.persistence.typed.javadsl.CommandHandler;
import org.apache.pekko.persistence.typed.javadsl.Effect;
import org.apache.pekko.persistence.typed.javadsl.EventHandler;
import org.apache.pekko.persistence.typed.javadsl.EventSourcedBehavior;
import org.apache.pekko.persistence.typed.javadsl.SignalHandler;

/**
 * The checkout saga (SPEC 2.1), one event-sourced entity per order. It locks
 * the cart, fans retractions out to the products and waits for all of them,
 * charges the user, and completes the cart; a missing stock or credit undoes
 * the retractions and releases the cart. Each phase (locked, started,
 * compensating, completed) is journaled before the next begins and every
 * message it sends carries the order id, so a saga cut off by a crash is
 * resumed from its journal (the order is a remembered entity: sharding
 * restarts it on a surviving member) and repeats only steps the receivers
 * apply once per order.
 */
public final class Order extends EventSourcedBehavior<Order.Command, Order.Event, Order.State> {
  public static final EntityTypeKey<Command> KEY = EntityTypeKey.create(Command.class, "order");

  public interface Command extends Wire {}

  public record Checkout(String cartId, String userId, Trace trace, ActorRef<Reply> replyTo) implements Command {}

  public record Get(Trace trace, ActorRef<Reply> replyTo) implements Command {}

  /** The answer (null: none in time) of the ask `step` made to `target`. Only ever sent to itself. */
  record Answer(String step, String target, Reply reply) implements Command {}

  /** Repeat the asks of the current step that have no answer. */
  record Resume() implements Command {}

  /** Stop when finished: sharding then forgets the remembered entity. */
  record Idle() implements Command {}

  public interface Event extends Wire {}

  /** `caller` and `trace` are journaled too: a saga resumed on another member still answers a gateway that is still waiting. */
  public record Requested(String cartId, String userId, ActorRef<Reply> caller, Trace trace) implements Event {}

  public record Rejected(int status, String error, String message) implements Event {}

  public record Started(List<Item> items) implements Event {}

  public record Compensating(int status, String error, String message, List<String> restock) implements Event {}

  public record Failed() implements Event {}

  public record Completed(long total) implements Event {}

  public record Counted() implements Event {}

  public record Item(String productId, long amount) implements Wire {}

  public enum Phase { NEW, REQUESTED, STARTED, COMPENSATING, REJECTED, FAILED, COMPLETED, COUNTED }

  public static final class State implements Wire {
    public Phase phase = Phase.NEW;
    public String cartId;
    public String userId;
    public ActorRef<Reply> caller;
    public Trace trace;
    public List<Item> items = new ArrayList<>();
    public long total;
    public int status;
    public String error;
    public String message;
    public List<String> restock = new ArrayList<>();
  }

  private final String id;
  private final ActorContext<Command> ctx;
  private final ClusterSharding sharding;
  private final Runnable passivate;
  /** who waits for the HTTP answer and under which trace; after a recovery the journaled ones, answered once */
  private ActorRef<Reply> caller;
  private Trace trace;
  private boolean recovered;
  /** transient: the answers of the current step so far, and the asks of it still out */
  private final Map<String, Reply> answers = new HashMap<>();
  private final Set<String> asking = new HashSet<>();
  private long stepStart;

  private Order(String id, ActorContext<Command> ctx, Runnable passivate) {
    super(Journal.id(KEY.name(), id));
    this.id = id;
    this.ctx = ctx;
    this.sharding = ClusterSharding.get(ctx.getSystem());
    this.passivate = passivate;
  }

  /** `shard` is asked to stop this entity once it is finished (which also makes sharding forget it). */
  public static Behavior<Command> create(String id, ActorRef<ClusterSharding.ShardCommand> shard) {
    return Behaviors.setup(ctx -> new Order(id, ctx, () -> shard.tell(new ClusterSharding.Passivate<>(ctx.getSelf()))));
  }

  @Override
  public State emptyState() {
    return new State();
  }

  /** Orders never snapshot (a saga is a handful of events): recovery skips the snapshot store's query. */
  @Override
  public Recovery recovery() {
    return Recovery.withSnapshotSelectionCriteria(SnapshotSelectionCriteria.none());
  }

  @Override
  public SignalHandler<State> signalHandler() {
    return newSignalHandlerBuilder().onSignal(RecoveryCompleted.instance(), this::advance).build();
  }

  private boolean finished(State s) {
    return s.phase == Phase.REJECTED || s.phase == Phase.FAILED || s.phase == Phase.COUNTED;
  }

  @Override
  public CommandHandler<Command, Event, State> commandHandler() {
    return newCommandHandlerBuilder()
        .forAnyState()
        .onCommand(Checkout.class, (s, c) -> {
          if (s.phase != Phase.NEW) return Effect().reply(c.replyTo(), Reply.conflict("order-exists", "order " + id + " exists"));
          caller = c.replyTo();
          trace = c.trace();
          recovered = true;
          stepStart = Spans.nowMicros();
          return Effect().persist(new Requested(c.cartId(), c.userId(), c.replyTo(), c.trace())).thenRun(this::advance);
        })
        .onCommand(Get.class, (s, c) -> Effect().reply(c.replyTo(), view(id, s)))
        .onCommand(Resume.class, (s, c) -> {
          advance(s);
          return Effect().none();
        })
        .onCommand(Idle.class, (s, c) -> {
          if (s.phase == Phase.NEW || finished(s)) passivate.run();
          return Effect().none();
        })
        .onCommand(Answer.class, this::onAnswer)
        .build();
  }

  /** GET /orders/{id} of an order in state `s`: completed and failed orders; one still running (or none) is 404. */
  public static Reply view(String id, State s) {
    boolean completed = s.phase == Phase.COMPLETED || s.phase == Phase.COUNTED;
    if (!completed && s.phase != Phase.FAILED && s.phase != Phase.REJECTED) return Reply.notFound("order " + id);
    var body = Json.object().put("id", id).put("cartId", s.cartId).put("userId", s.userId).put("status", completed ? "completed" : "failed").put("total", s.total);
    if (!completed) body.put("failure", s.error);
    return Reply.ok(body);
  }

  /** Makes the asks of the current phase that are neither answered nor out. */
  private void advance(State s) {
    if (!recovered) {
      recovered = true;
      caller = s.caller;
      trace = s.trace;
      stepStart = Spans.nowMicros();
    }
    switch (s.phase) {
      case REQUESTED -> ask("lock", s.cartId, () -> sharding.entityRefFor(Cart.KEY, s.cartId).ask(to -> new Cart.Begin(id, trace, to), Tuning.SAGA_ASK));
      // retract everywhere, then charge, then complete the cart: one journaled phase, since every
      // step is applied once per order, a resumed saga asks them all again and gets the same answers
      case STARTED -> {
        List<String> products = s.items.stream().map(Item::productId).toList();
        if (!allAnswered("retract", products)) {
          for (Item item : s.items) ask("retract", item.productId(), () -> sharding.entityRefFor(Product.KEY, item.productId()).ask(to -> new Product.Retract(id, item.amount(), trace, to), Tuning.SAGA_ASK));
        } else if (!answers.containsKey("charge:" + s.userId)) {
          long total = total(s);
          ask("charge", s.userId, () -> sharding.entityRefFor(User.KEY, s.userId).ask(to -> new User.Charge(id, total, trace, to), Tuning.SAGA_ASK));
        } else {
          ask("complete", s.cartId, () -> sharding.entityRefFor(Cart.KEY, s.cartId).ask(to -> new Cart.Complete(id, trace, to), Tuning.SAGA_ASK));
        }
      }
      case COMPENSATING -> {
        for (String p : s.restock) ask("restock", p, () -> sharding.entityRefFor(Product.KEY, p).ask(to -> new Product.Restock(id, trace, to), Tuning.SAGA_ASK));
        if (allAnswered("restock", s.restock)) ask("release", s.cartId, () -> sharding.entityRefFor(Cart.KEY, s.cartId).ask(to -> new Cart.Release(id, trace, to), Tuning.SAGA_ASK));
      }
      case COMPLETED -> {
        for (Item item : s.items) {
          List<String> others = s.items.stream().map(Item::productId).filter(p -> !p.equals(item.productId())).toList();
          ask("count", item.productId(), () -> sharding.entityRefFor(Product.KEY, item.productId()).ask(to -> new Product.CountPairs(id, others, to), Tuning.SAGA_ASK));
        }
      }
      // finished, or never started (woken by a GET of an unknown id): stays for GETs a while, then stops
      case NEW, REJECTED, FAILED, COUNTED -> ctx.scheduleOnce(Tuning.ORDER_IDLE, ctx.getSelf(), new Idle());
    }
  }

  private void ask(String step, String target, Supplier<CompletionStage<Reply>> send) {
    String key = step + ":" + target;
    if (answers.containsKey(key) || asking.contains(key)) return;
    asking.add(key);
    ctx.pipeToSelf(send.get(), (reply, failure) -> new Answer(step, target, failure == null ? reply : null));
  }

  private Effect<Event, State> onAnswer(State s, Answer a) {
    String key = a.step() + ":" + a.target();
    asking.remove(key);
    if (a.reply() == null) {
      // no answer in time (a member went away or is being downed): ask again shortly, the receiver applies it once
      ctx.scheduleOnce(Tuning.SAGA_RETRY, ctx.getSelf(), new Resume());
      return Effect().none();
    }
    answers.put(key, a.reply());
    Reply r = a.reply();
    switch (a.step()) {
      case "lock":
        if (s.phase != Phase.REQUESTED) return Effect().none();
        Spans.function(trace, "order", "checkout", id, stepStart);
        if (!r.isOk()) return next(new Rejected(r.status(), r.error(), r.message()), ns -> answerCaller(new Reply(r.status(), r.error(), r.message(), null)));
        List<Item> items = new ArrayList<>();
        for (JsonNode line : r.body()) items.add(new Item(line.get("productId").asText(), line.get("amount").asLong()));
        return next(new Started(items), this::advance);
      case "retract":
        if (s.phase != Phase.STARTED || !allAnswered("retract", s.items.stream().map(Item::productId).toList())) return Effect().none();
        stepStart = Spans.nowMicros();
        Reply refused = null;
        List<String> retracted = new ArrayList<>();
        for (Item item : s.items) {
          Reply p = answers.get("retract:" + item.productId());
          if (p.isOk()) retracted.add(item.productId());
          else if (refused == null || p.status() == 409) refused = p;
        }
        if (refused != null) return next(new Compensating(refused.status(), refused.error(), refused.message(), retracted), this::advance);
        advance(s);
        return Effect().none();
      case "charge":
        if (s.phase != Phase.STARTED) return Effect().none();
        if (!r.isOk()) return next(new Compensating(r.status(), r.error(), r.message(), s.items.stream().map(Item::productId).toList()), this::advance);
        advance(s);
        return Effect().none();
      case "complete":
        if (s.phase != Phase.STARTED) return Effect().none();
        return next(new Completed(total(s)), ns -> {
          Spans.function(trace, "order", "complete", id, stepStart);
          answerCaller(Reply.ok(Json.object().put("orderId", id).put("total", ns.total)));
          // SPEC 2.1 step 6, after the answer
          advance(ns);
        });
      case "restock":
        if (s.phase == Phase.COMPENSATING) advance(s);
        return Effect().none();
      case "release":
        if (s.phase != Phase.COMPENSATING) return Effect().none();
        return next(new Failed(), ns -> {
          Spans.function(trace, "order", "compensate", id, stepStart);
          answerCaller(new Reply(ns.status, ns.error, ns.message, null));
          advance(ns);
        });
      case "count":
        if (s.phase != Phase.COMPLETED || !allAnswered("count", s.items.stream().map(Item::productId).toList())) return Effect().none();
        return next(new Counted(), this::advance);
      default:
        return Effect().none();
    }
  }

  /** sum of price x amount, the prices as the products answered them */
  private long total(State s) {
    long total = 0;
    for (Item item : s.items) total += answers.get("retract:" + item.productId()).body().get("price").asLong() * item.amount();
    return total;
  }

  private boolean allAnswered(String step, List<String> targets) {
    for (String t : targets) if (!answers.containsKey(step + ":" + t)) return false;
    return true;
  }

  /** Journals the step's outcome, forgets the step's answers and runs `then` on the new state. */
  private Effect<Event, State> next(Event e, java.util.function.Consumer<State> then) {
    return Effect().persist(e).thenRun(ns -> {
      answers.clear();
      asking.clear();
      then.accept(ns);
    });
  }

  private void answerCaller(Reply r) {
    // a caller on a member that is gone: the answer goes to dead letters
    if (caller != null) caller.tell(r);
    caller = null;
  }

  @Override
  public EventHandler<State, Event> eventHandler() {
    return newEventHandlerBuilder().forAnyState().onAnyEvent(Order::apply);
  }

  /** The event handler, also used by the read side (OrderView) to fold an order's journal. */
  public static State apply(State s, Event event) {
    if (event instanceof Requested e) {
      s.phase = Phase.REQUESTED;
      s.cartId = e.cartId();
      s.userId = e.userId();
      s.caller = e.caller();
      s.trace = e.trace();
    } else if (event instanceof Rejected e) {
      s.phase = Phase.REJECTED;
      s.status = e.status();
      s.error = e.error();
      s.message = e.message();
    } else if (event instanceof Started e) {
      s.phase = Phase.STARTED;
      s.items = new ArrayList<>(e.items());
    } else if (event instanceof Compensating e) {
      s.phase = Phase.COMPENSATING;
      s.status = e.status();
      s.error = e.error();
      s.message = e.message();
      s.restock = new ArrayList<>(e.restock());
    } else if (event instanceof Failed) {
      s.phase = Phase.FAILED;
    } else if (event instanceof Completed e) {
      s.phase = Phase.COMPLETED;
      s.total = e.total();
    } else if (event instanceof Counted) {
      s.phase = Phase.COUNTED;
    }
    return s;
  }
}
