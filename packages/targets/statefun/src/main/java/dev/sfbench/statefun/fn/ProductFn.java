package dev.sfbench.statefun.fn;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sfbench.statefun.Ids;
import dev.sfbench.statefun.Json;
import dev.sfbench.statefun.Msg;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.Map;
import java.util.PriorityQueue;
import org.apache.flink.statefun.sdk.Context;
import org.apache.flink.statefun.sdk.annotations.Persisted;
import org.apache.flink.statefun.sdk.state.PersistedTable;
import org.apache.flink.statefun.sdk.state.PersistedValue;

/**
 * A product (keyed by its id): price and stock, and the co-purchase counts
 * count[self][q] of SPEC 2.2. Stock is retracted atomically because one
 * address handles one message at a time.
 */
public final class ProductFn extends ShopFunction {
  public static final class State {
    public long price;
    public long stock;

    public State() {}

    State(long price, long stock) {
      this.price = price;
      this.stock = stock;
    }
  }

  @Persisted private final PersistedValue<State> state = PersistedValue.of("product", State.class);

  @Persisted
  private final PersistedTable<String, Long> coPurchase = PersistedTable.of("co-purchase", String.class, Long.class);

  public ProductFn() {
    super("product");
  }

  @Override
  protected void handle(Context c, Msg m) {
    String self = c.self().id();
    State s = state.get();
    switch (m.type) {
      case "product.create" -> {
        state.set(new State(or0(m.price), or0(m.stock)));
        ok(c, m, self);
      }
      case "product.upsert" -> {
        State next = s == null ? new State(0, 0) : s;
        if (m.price != null) next.price = m.price;
        next.stock += or0(m.stock);
        state.set(next);
        ok(c, m, self);
      }
      case "product.get" -> {
        if (s == null) {
          fail(c, m, 404, "not-found", "product " + self + " does not exist");
          return;
        }
        ObjectNode body = Json.object();
        body.put("id", self);
        body.put("price", s.price);
        body.put("stock", s.stock);
        ok(c, m, body);
      }
      case "product.addToCart" -> {
        // the product checks that it exists, then the cart adds it
        if (s == null) {
          fail(c, m, 404, "not-found", "product " + self + " does not exist");
          return;
        }
        Msg add = m.follow("cart.add");
        add.productId = self;
        add.amount = m.amount;
        c.send(Ids.CART, m.cartId, add);
      }
      case "product.retract" -> {
        Msg answer = m.follow("order.retracted");
        answer.productId = self;
        if (s == null) {
          answer.ok = false;
          answer.code = "not-found";
        } else if (s.stock < m.amount) {
          answer.ok = false;
          answer.code = "insufficient-stock";
        } else {
          s.stock -= m.amount;
          state.set(s);
          answer.ok = true;
          answer.price = s.price;
        }
        c.send(Ids.ORDER, m.orderId, answer);
      }
      case "product.putBack" -> {
        // compensation of a retract of this same order: the product exists
        if (s != null) {
          s.stock += m.amount;
          state.set(s);
        }
      }
      case "product.coPurchase" -> {
        for (String other : m.ids) {
          if (other.equals(self)) continue;
          Long count = coPurchase.get(other);
          coPurchase.set(other, count == null ? 1L : count + 1);
        }
      }
      case "product.top" -> {
        Msg answer = m.follow("query.topResult");
        answer.productId = self;
        answer.depth = m.depth;
        answer.top = m.top;
        answer.exclude = m.exclude;
        if (s == null) {
          answer.ok = false;
          answer.code = "not-found";
        } else {
          answer.ok = true;
          answer.ids = top(m.top, new HashSet<>(m.exclude));
        }
        c.send(Ids.QUERY, m.corr, answer);
      }
      default -> unknown(c, m);
    }
  }

  /** The (at most) n products with the highest count, ties by ascending id, not in {@code exclude}. */
  private ArrayList<String> top(int n, HashSet<String> exclude) {
    // "worst" first: lower count, then the larger id
    Comparator<Map.Entry<String, Long>> worstFirst =
        Comparator.<Map.Entry<String, Long>>comparingLong(Map.Entry::getValue)
            .thenComparing(Map.Entry::getKey, Comparator.reverseOrder());
    PriorityQueue<Map.Entry<String, Long>> best = new PriorityQueue<>(worstFirst);
    for (Map.Entry<String, Long> e : coPurchase.entries()) {
      if (exclude.contains(e.getKey())) continue;
      Map.Entry<String, Long> entry = Map.entry(e.getKey(), e.getValue());
      if (best.size() < n) best.add(entry);
      else if (worstFirst.compare(entry, best.peek()) > 0) {
        best.poll();
        best.add(entry);
      }
    }
    ArrayList<String> ids = new ArrayList<>(best.size());
    for (Map.Entry<String, Long> e : best) ids.add(e.getKey());
    return ids;
  }
}
