package dev.sfbench.pekko.app;

import java.time.Duration;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;
import org.apache.pekko.actor.ClassicActorSystemProvider;
import org.apache.pekko.pattern.Patterns;

/**
 * An entity read asked again when no answer comes in time. Sharding delivers
 * at most once: a message that reaches a shard's member between the start of
 * the shard's hand-off and its end (a rebalance, which follows every member
 * that joins) is dropped so that what was buffered keeps its order, and the
 * ask waits out its whole timeout. A read changes nothing, so the gateway
 * asks it again (Pekko's `Patterns.retry`), as Pekko's docs leave retries to
 * the sender; writes are not repeated here (the checkout saga repeats its own
 * steps, each applied once per order).
 */
public final class Reads {
  private final ClassicActorSystemProvider system;

  public Reads(ClassicActorSystemProvider system) {
    this.system = system;
  }

  /** `ask` with Tuning.READ_ASK as its timeout, up to Tuning.READ_ATTEMPTS times. */
  public <T> CompletionStage<T> ask(Function<Duration, CompletionStage<T>> ask) {
    return Patterns.retry(() -> ask.apply(Tuning.READ_ASK), Tuning.READ_ATTEMPTS, Tuning.SAGA_RETRY, system);
  }
}
