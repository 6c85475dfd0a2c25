package dev.sfbench.pekko.gateway;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sfbench.pekko.app.Json;
import dev.sfbench.pekko.app.Reply;
import dev.sfbench.pekko.app.Spans;
import dev.sfbench.pekko.app.Trace;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import org.apache.pekko.http.javadsl.model.ContentTypes;
import org.apache.pekko.http.javadsl.model.HttpRequest;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.stream.Materializer;

/**
 * The pekko-http gateway: matches a route, checks the ids in the path, reads
 * the body, opens the gateway span of a sampled request (SPEC 3) and turns
 * the entity's Reply into the HTTP answer. An ask that gets no answer in time
 * is 503 unavailable (a member is gone and its shards are not yet moved).
 */
public final class Gateway {
  private static final long BODY_READ_MS = 10_000;
  private final List<Route> routes;
  private final Materializer materializer;
  private final Supplier<CompletionStage<Boolean>> ready;

  public Gateway(List<Route> routes, Materializer materializer, Supplier<CompletionStage<Boolean>> ready) {
    this.routes = routes;
    this.materializer = materializer;
    this.ready = ready;
  }

  public CompletionStage<HttpResponse> handle(HttpRequest req) {
    String method = req.method().value();
    List<String> segments = new ArrayList<>();
    for (String s : req.getUri().pathSegments()) segments.add(s);
    if (method.equals("GET") && segments.equals(List.of("health"))) {
      return ready.get().thenApply(ok -> ok ? json(200, Json.object().put("status", "ok")) : error(503, "starting", "the cluster member is not up yet"));
    }
    Route route = null;
    List<String> ids = null;
    boolean pathKnown = false;
    for (Route r : routes) {
      List<String> m = r.match(segments);
      if (m == null) continue;
      pathKnown = true;
      if (r.method().equals(method)) {
        route = r;
        ids = m;
        break;
      }
    }
    String path = req.getUri().path();
    if (route == null) {
      req.discardEntityBytes(materializer);
      return CompletableFuture.completedFuture(pathKnown ? error(405, "method-not-allowed", method + " " + path + ": no such route") : error(404, "not-found", method + " " + path + ": no such route"));
    }
    final Route matched = route;
    final List<String> pathIds = ids;
    long start = Spans.nowMicros();
    // only a sampled request is traced: an unsampled one (every phase but the traced one) gives the entities no trace
    final Spans.Traceparent parent = Spans.enabled() ? req.getHeader("traceparent").map(h -> Spans.sampledTraceparent(h.value())).orElse(null) : null;
    final Trace t = parent == null ? null : new Trace(parent.traceId(), Spans.newSpanId());
    return req.entity().toStrict(BODY_READ_MS, materializer).thenCompose(strict -> {
      String body = strict.getData().decodeString(StandardCharsets.UTF_8);
      for (String id : pathIds) Validate.id("id", id);
      return matched.handler().apply(new Request(pathIds, req.getUri().query(), body, t));
    }).handle((reply, failure) -> {
      if (t != null) Spans.write(t.traceId(), t.parentId(), parent.parentId(), "gateway", matched.entity(), matched.op(), pathIds.isEmpty() ? null : pathIds.get(0), start, Spans.nowMicros());
      if (failure == null) return answer(reply);
      Throwable cause = failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
      if (cause instanceof BadRequest) return error(400, "bad-request", cause.getMessage());
      if (cause instanceof TimeoutException) return error(503, "unavailable", "no answer in time: " + cause.getMessage());
      return error(500, "internal", String.valueOf(cause));
    });
  }

  private static HttpResponse answer(Reply r) {
    if (!r.isOk()) return error(r.status(), r.error(), r.message());
    if (r.body() == null) return HttpResponse.create().withStatus(200);
    return json(200, r.body());
  }

  private static HttpResponse json(int status, JsonNode body) {
    return HttpResponse.create().withStatus(status).withEntity(ContentTypes.APPLICATION_JSON, body.toString().getBytes(StandardCharsets.UTF_8));
  }

  private static HttpResponse error(int status, String code, String message) {
    return json(status, Json.object().put("error", code).put("message", message));
  }
}
