package dev.sfbench.statefun.fn;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sfbench.statefun.Ids;
import dev.sfbench.statefun.Json;
import dev.sfbench.statefun.Msg;
import org.apache.flink.statefun.sdk.Context;
import org.apache.flink.statefun.sdk.annotations.Persisted;
import org.apache.flink.statefun.sdk.state.PersistedValue;

/** A user (keyed by its id): credits. A charge is all or nothing. */
public final class UserFn extends ShopFunction {
  @Persisted private final PersistedValue<Long> credits = PersistedValue.of("credits", Long.class);

  public UserFn() {
    super("user");
  }

  @Override
  protected void handle(Context c, Msg m) {
    String self = c.self().id();
    Long have = credits.get();
    switch (m.type) {
      case "user.create" -> {
        credits.set(or0(m.credits));
        ok(c, m, self);
      }
      case "user.get" -> {
        if (have == null) {
          fail(c, m, 404, "not-found", "user " + self + " does not exist");
          return;
        }
        ObjectNode body = Json.object();
        body.put("id", self);
        body.put("credits", have);
        ok(c, m, body);
      }
      case "user.addCredits" -> {
        if (have == null) {
          fail(c, m, 404, "not-found", "user " + self + " does not exist");
          return;
        }
        credits.set(have + m.credits);
        ok(c, m, null);
      }
      case "user.charge" -> {
        Msg answer = m.follow("order.charged");
        if (have == null) {
          answer.ok = false;
          answer.code = "not-found";
        } else if (have < m.total) {
          answer.ok = false;
          answer.code = "insufficient-credits";
        } else {
          credits.set(have - m.total);
          answer.ok = true;
        }
        c.send(Ids.ORDER, m.orderId, answer);
      }
      default -> unknown(c, m);
    }
  }
}
