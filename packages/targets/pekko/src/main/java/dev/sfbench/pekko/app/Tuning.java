package dev.sfbench.pekko.app;

import java.time.Duration;

/** The timing choices of the entities, in one place with the reason for each. */
public final class Tuning {
  private Tuning() {}

  /**
   * A snapshot every this many events: a hot product (Zipf) collects thousands
   * of events in a run, and an entity that moves to another member after a
   * crash replays only what came after its last snapshot.
   */
  public static final int SNAPSHOT_EVERY = 200;

  /**
   * How long one entity-to-entity ask of the checkout saga waits. A member
   * that was killed holds its shards until the split-brain resolver downs it
   * (failure detection plus stable-after, about 10 s): an ask to such a shard
   * times out and the saga asks again, which is safe since every step is
   * applied once per order.
   */
  public static final Duration SAGA_ASK = Duration.ofSeconds(5);

  /**
   * How long one attempt of an entity read waits (Reads). An answered read
   * takes milliseconds even at the knee; one with no answer after this long
   * was dropped in a hand-off or sent to a member being downed.
   */
  public static final Duration READ_ASK = Duration.ofSeconds(5);

  /** Attempts of an entity read: with the pauses between them about the 15 s a write's ask waits. */
  public static final int READ_ATTEMPTS = 3;

  /** The pause before the saga repeats an ask that failed, and before a read is asked again. */
  public static final Duration SAGA_RETRY = Duration.ofMillis(500);

  /** A finished order stays in memory this long for GET /orders, then passivates (it is a remembered entity). */
  public static final Duration ORDER_IDLE = Duration.ofSeconds(10);

  /**
   * /micro/io keeps only its newest payload: a snapshot every this many
   * writes, with the events before it deleted, so a key written thousands of
   * times recovers from one snapshot of at most 1 MiB.
   */
  public static final int IO_SNAPSHOT_EVERY = 10;
}
