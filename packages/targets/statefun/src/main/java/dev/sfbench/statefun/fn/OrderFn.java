package dev.sfbench.statefun.fn;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sfbench.statefun.Ids;
import dev.sfbench.statefun.Json;
import dev.sfbench.statefun.Msg;
import java.util.ArrayList;
import java.util.stream.Collectors;
import org.apache.flink.statefun.sdk.Context;
import org.apache.flink.statefun.sdk.annotations.Persisted;
import org.apache.flink.statefun.sdk.state.PersistedValue;

/**
 * An order (keyed by the id the gateway gave the checkout): the checkout saga
 * of SPEC 2.1. Fan-out: every product of the cart is asked to retract its
 * amount. Fan-in: when all answered, either put back what was retracted
 * (insufficient-stock) or charge the user; a failed charge puts back all
 * stock. The cart hears the outcome and answers the request. Only completed
 * orders are kept; a failed order leaves no state.
 */
public final class OrderFn extends ShopFunction {
  public static final class State {
    public String cartId;
    public String userId;
    public ArrayList<Msg.Item> items;
    /** product answers still missing */
    public int waiting;
    /** "retracting", "charging" or "completed" */
    public String phase;
    public long total;

    public State() {}
  }

  @Persisted private final PersistedValue<State> state = PersistedValue.of("order", State.class);

  public OrderFn() {
    super("order");
  }

  @Override
  protected void handle(Context c, Msg m) {
    String self = c.self().id();
    State s = state.get();
    switch (m.type) {
      case "order.start" -> {
        State next = new State();
        next.cartId = m.cartId;
        next.userId = m.userId;
        next.items = m.items;
        next.waiting = m.items.size();
        next.phase = "retracting";
        state.set(next);
        for (Msg.Item item : m.items) {
          Msg retract = m.follow("product.retract");
          retract.orderId = self;
          retract.amount = item.amount;
          c.send(Ids.PRODUCT, item.productId, retract);
        }
      }
      case "order.retracted" -> {
        if (s == null || !"retracting".equals(s.phase)) return;
        for (Msg.Item item : s.items) {
          if (item.productId.equals(m.productId)) {
            item.retracted = m.ok;
            if (m.ok) item.price = m.price;
          }
        }
        if (--s.waiting > 0) {
          state.set(s);
          return;
        }
        String short_ = s.items.stream().filter(i -> !i.retracted).map(i -> i.productId).collect(Collectors.joining(", "));
        if (!short_.isEmpty()) {
          putBack(c, s, m);
          finishFailed(c, s, m, 409, "insufficient-stock", "not enough stock of " + short_);
          return;
        }
        long total = 0;
        for (Msg.Item item : s.items) total += item.price * item.amount;
        s.total = total;
        s.phase = "charging";
        state.set(s);
        Msg charge = m.follow("user.charge");
        charge.orderId = self;
        charge.total = total;
        c.send(Ids.USER, s.userId, charge);
      }
      case "order.charged" -> {
        if (s == null || !"charging".equals(s.phase)) return;
        if (!m.ok) {
          putBack(c, s, m);
          if ("not-found".equals(m.code)) finishFailed(c, s, m, 404, "not-found", "user " + s.userId + " does not exist");
          else finishFailed(c, s, m, 409, "insufficient-credits", "user " + s.userId + " has fewer than " + s.total + " credits");
          return;
        }
        s.phase = "completed";
        state.set(s);
        Msg done = m.follow("cart.checkoutDone");
        done.orderId = self;
        done.ok = true;
        done.total = s.total;
        c.send(Ids.CART, s.cartId, done);
        coPurchase(c, s);
      }
      case "order.get" -> {
        if (s == null || !"completed".equals(s.phase)) {
          fail(c, m, 404, "not-found", "order " + self + " does not exist");
          return;
        }
        ObjectNode body = Json.object();
        body.put("id", self);
        body.put("cartId", s.cartId);
        body.put("userId", s.userId);
        body.put("status", "completed");
        body.put("total", s.total);
        ok(c, m, body);
      }
      default -> unknown(c, m);
    }
  }

  /** Compensation: every product that retracted gets its amount back. */
  private static void putBack(Context c, State s, Msg m) {
    for (Msg.Item item : s.items) {
      if (!item.retracted) continue;
      Msg back = m.follow("product.putBack");
      back.amount = item.amount;
      c.send(Ids.PRODUCT, item.productId, back);
    }
  }

  private void finishFailed(Context c, State s, Msg m, int status, String code, String message) {
    state.clear();
    Msg done = m.follow("cart.checkoutDone");
    done.orderId = c.self().id();
    done.ok = false;
    done.status = status;
    done.code = code;
    done.message = message;
    c.send(Ids.CART, s.cartId, done);
  }

  /**
   * SPEC 2.1 step 6, after the answer is on its way: every product of the
   * order counts the others. Sent without the trace and the correlation id:
   * it is not part of the request.
   */
  private static void coPurchase(Context c, State s) {
    if (s.items.size() < 2) return;
    ArrayList<String> ids = new ArrayList<>();
    for (Msg.Item item : s.items) ids.add(item.productId);
    for (String id : ids) {
      Msg update = new Msg();
      update.type = "product.coPurchase";
      update.ids = ids;
      c.send(Ids.PRODUCT, id, update);
    }
  }
}
