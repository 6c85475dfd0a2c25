package dev.sfbench.pekko.gateway;

import dev.sfbench.pekko.app.Trace;
import java.util.List;
import java.util.Optional;
import org.apache.pekko.http.javadsl.model.Query;

/** One routed request: the path's ids, the query, the body text and the trace its entities hang their spans under. */
public record Request(List<String> ids, Query query, String body, Trace trace) {
  public String id() {
    return ids.get(0);
  }

  public Optional<String> param(String name) {
    return query.get(name);
  }
}
