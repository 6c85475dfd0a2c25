package dev.sfbench.pekko.gateway;

import dev.sfbench.pekko.app.Reply;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;

/** A route: method, path pattern ("*" is an id), the entity and op its gateway span names, and the handler. */
public record Route(String method, List<String> pattern, String entity, String op, Function<Request, CompletionStage<Reply>> handler) {
  public static Route of(String method, String path, String entity, String op, Function<Request, CompletionStage<Reply>> handler) {
    return new Route(method, List.of(path.substring(1).split("/")), entity, op, handler);
  }

  /** The ids of `segments` when they match the pattern, else null. */
  public List<String> match(List<String> segments) {
    if (segments.size() != pattern.size()) return null;
    List<String> ids = new java.util.ArrayList<>();
    for (int i = 0; i < pattern.size(); i++) {
      if (pattern.get(i).equals("*")) ids.add(segments.get(i));
      else if (!pattern.get(i).equals(segments.get(i))) return null;
    }
    return ids;
  }
}
