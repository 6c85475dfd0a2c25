package dev.sfbench.statefun.fn;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sfbench.statefun.Ids;
import dev.sfbench.statefun.Json;
import dev.sfbench.statefun.Msg;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.flink.statefun.sdk.Context;
import org.apache.flink.statefun.sdk.annotations.Persisted;
import org.apache.flink.statefun.sdk.state.PersistedValue;

/**
 * A shopping cart (keyed by its id): items, whether it was checked out, and
 * the checkout running on it. While a checkout runs, further checkouts and
 * additions wait in the cart's state and are handled once it ends: a cart is
 * charged at most once, and nothing slips into a cart after its checkout read it.
 * The cart answers checkouts, after the order reported the outcome, so a
 * 200 is only sent once the cart shows checkedOut.
 */
public final class CartFn extends ShopFunction {
  public static final class State {
    public boolean checkedOut;
    public LinkedHashMap<String, Long> items = new LinkedHashMap<>();
    /** the order of the running checkout, or null */
    public String checkoutOrder;
    /** checkouts and additions that arrived while a checkout ran */
    public ArrayList<Msg> waiting = new ArrayList<>();

    public State() {}
  }

  @Persisted private final PersistedValue<State> state = PersistedValue.of("cart", State.class);

  public CartFn() {
    super("cart");
  }

  @Override
  protected void handle(Context c, Msg m) {
    String self = c.self().id();
    State s = state.get();
    if (m.type.equals("cart.create")) {
      state.set(new State());
      ok(c, m, self);
      return;
    }
    if (s == null) {
      if (m.type.equals("cart.checkoutDone")) return; // cannot happen: a cart is never deleted
      fail(c, m, 404, "not-found", "cart " + self + " does not exist");
      return;
    }
    switch (m.type) {
      case "cart.get" -> {
        ObjectNode body = Json.object();
        body.put("id", self);
        ArrayNode items = body.putArray("items");
        for (Map.Entry<String, Long> e : s.items.entrySet()) {
          items.addObject().put("productId", e.getKey()).put("amount", e.getValue());
        }
        body.put("checkedOut", s.checkedOut);
        ok(c, m, body);
      }
      case "cart.add" -> {
        if (s.checkoutOrder != null) {
          s.waiting.add(m);
          state.set(s);
        } else if (s.checkedOut) {
          fail(c, m, 409, "cart-checked-out", "cart " + self + " is already checked out");
        } else {
          s.items.merge(m.productId, m.amount, Long::sum);
          state.set(s);
          ok(c, m, null);
        }
      }
      case "cart.checkout" -> {
        if (s.checkoutOrder != null) {
          s.waiting.add(m);
          state.set(s);
        } else if (s.checkedOut) {
          fail(c, m, 409, "cart-checked-out", "cart " + self + " is already checked out");
        } else if (s.items.isEmpty()) {
          fail(c, m, 409, "empty-cart", "cart " + self + " is empty");
        } else {
          s.checkoutOrder = m.orderId;
          state.set(s);
          Msg start = m.follow("order.start");
          start.cartId = self;
          start.userId = m.userId;
          start.items = new ArrayList<>();
          for (Map.Entry<String, Long> e : s.items.entrySet()) start.items.add(new Msg.Item(e.getKey(), e.getValue()));
          c.send(Ids.ORDER, m.orderId, start);
        }
      }
      case "cart.checkoutDone" -> {
        if (!m.orderId.equals(s.checkoutOrder)) return; // not the running checkout: cannot happen
        s.checkoutOrder = null;
        if (m.ok) {
          s.checkedOut = true;
          ObjectNode body = Json.object();
          body.put("orderId", m.orderId);
          body.put("total", m.total);
          ok(c, m, body);
        } else {
          fail(c, m, m.status, m.code, m.message);
        }
        ArrayList<Msg> waiting = s.waiting;
        s.waiting = new ArrayList<>();
        state.set(s);
        // what waited runs now, in arrival order (a new checkout makes the rest wait again)
        for (Msg w : waiting) handle(c, w);
      }
      default -> unknown(c, m);
    }
  }
}
