package dev.sfbench.pekko.app;

import java.util.concurrent.CompletionStage;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.persistence.jdbc.query.javadsl.JdbcReadJournal;
import org.apache.pekko.persistence.query.PersistenceQuery;
import org.apache.pekko.stream.Materializer;

/**
 * GET /orders/{id} from the read side: the order's events as the journal
 * holds them (pekko-persistence-jdbc's read journal), folded with the
 * entity's own event handler. Order entities are remembered, so asking one
 * would start it and record it (two journal writes) for every read, also for
 * ids that were never orders; the journal already has everything a GET
 * answers, committed before the checkout was.
 */
public final class OrderView {
  private final JdbcReadJournal journal;
  private final Materializer materializer;

  public OrderView(ActorSystem<?> system, Materializer materializer) {
    this.journal = PersistenceQuery.get(system.classicSystem()).getReadJournalFor(JdbcReadJournal.class, JdbcReadJournal.Identifier());
    this.materializer = materializer;
  }

  public CompletionStage<Reply> read(String id) {
    return journal
        .currentEventsByPersistenceId(Journal.id(Order.KEY.name(), id).id(), 0, Long.MAX_VALUE)
        .runFold(new Order.State(), (s, envelope) -> Order.apply(s, (Order.Event) envelope.event()), materializer)
        .thenApply(s -> Order.view(id, s));
  }
}
