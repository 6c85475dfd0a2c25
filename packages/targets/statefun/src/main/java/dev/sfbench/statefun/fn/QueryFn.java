package dev.sfbench.statefun.fn;

import dev.sfbench.statefun.Ids;
import dev.sfbench.statefun.Msg;
import java.util.ArrayList;
import java.util.HashSet;
import org.apache.flink.statefun.sdk.Context;
import org.apache.flink.statefun.sdk.annotations.Persisted;
import org.apache.flink.statefun.sdk.state.PersistedValue;

/**
 * The coordinator of one freq-items query (SPEC 2.2), keyed by the request's
 * correlation id. visit(p, d, V) becomes one "product.top" message to p with
 * (n, d, V); p answers its top n outside V, and for d > 1 the coordinator
 * sends the children their visits with V' = V + C, all at once. Products only
 * answer and never wait for each other, so cycles cannot deadlock and a
 * product visited by several branches at once just answers each. The query
 * ends when no visit is outstanding; its state is then cleared.
 *
 * <p>Also answers the gateway's readiness ping ("query.ping").
 */
public final class QueryFn extends ShopFunction {
  public static final class State {
    public int outstanding;
    public int visits;
    public HashSet<String> found = new HashSet<>();

    public State() {}
  }

  /** queries that would visit more products are answered 400 (a top=100 depth=20 query on a dense graph) */
  public static final int MAX_VISITS = 100_000;

  @Persisted private final PersistedValue<State> state = PersistedValue.of("query", State.class);

  public QueryFn() {
    super(null);
  }

  @Override
  protected void handle(Context c, Msg m) {
    switch (m.type) {
      case "query.ping" -> ok(c, m, "pong");
      case "query.freq" -> {
        State s = new State();
        s.outstanding = 1;
        s.visits = 1;
        state.set(s);
        Msg visit = m.follow("product.top");
        visit.top = m.top;
        visit.depth = m.depth;
        visit.exclude = new ArrayList<>();
        visit.exclude.add(m.productId);
        c.send(Ids.PRODUCT, m.productId, visit);
      }
      case "query.topResult" -> {
        State s = state.get();
        if (s == null) return; // the query was already answered (refused as too large)
        s.outstanding--;
        if (!m.ok) {
          // only the root can be missing: every other visit comes from a co-purchase count
          state.clear();
          fail(c, m, 404, "not-found", "product " + m.productId + " does not exist");
          return;
        }
        s.found.addAll(m.ids);
        if (m.depth > 1 && !m.ids.isEmpty()) {
          ArrayList<String> exclude = new ArrayList<>(m.exclude);
          exclude.addAll(m.ids);
          s.visits += m.ids.size();
          if (s.visits > MAX_VISITS) {
            state.clear();
            fail(c, m, 400, "bad-request", "this query would visit more than " + MAX_VISITS + " products; use a smaller top or depth");
            return;
          }
          for (String child : m.ids) {
            Msg visit = m.follow("product.top");
            visit.top = m.top;
            visit.depth = m.depth - 1;
            visit.exclude = exclude;
            c.send(Ids.PRODUCT, child, visit);
            s.outstanding++;
          }
        }
        if (s.outstanding == 0) {
          state.clear();
          ok(c, m, new ArrayList<>(s.found));
        } else {
          state.set(s);
        }
      }
      default -> unknown(c, m);
    }
  }
}
