package dev.sfbench.pekko.app;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.pekko.cluster.sharding.typed.javadsl.ClusterSharding;

/**
 * "Frequently bought together" (SPEC 2.2): visit(p, d, V) asks product p for
 * its top n outside V and then visits the children concurrently with V and
 * the children excluded. Products only answer their own top n, so no product
 * waits on another and cycles cannot deadlock.
 */
public final class FreqItems {
  private final ClusterSharding sharding;
  private final Reads reads;

  public FreqItems(ClusterSharding sharding, Reads reads) {
    this.sharding = sharding;
    this.reads = reads;
  }

  /** The answer as a set of ids, or the root's failure (404 for an unknown product). */
  public CompletionStage<Reply> query(String root, int n, int depth, Trace trace) {
    Set<String> visited = Set.of(root);
    return top(root, n, visited, trace).thenCompose(first -> {
      if (!first.isOk()) return CompletableFuture.completedFuture(first);
      return expand(ids(first), n, depth, visited, trace).thenApply(all -> {
        var out = Json.array();
        all.forEach(out::add);
        return Reply.ok(out);
      });
    });
  }

  private CompletionStage<Reply> top(String product, int n, Set<String> exclude, Trace trace) {
    return reads.ask(timeout -> sharding.entityRefFor(Product.KEY, product).ask(to -> new Product.Top(n, new ArrayList<>(exclude), trace, to), timeout));
  }

  private static List<String> ids(Reply r) {
    List<String> out = new ArrayList<>();
    if (r.isOk()) for (JsonNode id : r.body()) out.add(id.asText());
    return out;
  }

  /** C ∪ the visits of every c in C at depth d-1 with V ∪ C excluded. */
  private CompletionStage<Set<String>> expand(List<String> children, int n, int depth, Set<String> visited, Trace trace) {
    Set<String> result = new LinkedHashSet<>(children);
    if (depth <= 1 || children.isEmpty()) return CompletableFuture.completedFuture(result);
    Set<String> next = new HashSet<>(visited);
    next.addAll(children);
    List<CompletableFuture<Set<String>>> branches = new ArrayList<>();
    for (String c : children) branches.add(top(c, n, next, trace).thenCompose(r -> expand(ids(r), n, depth - 1, next, trace)).toCompletableFuture());
    return CompletableFuture.allOf(branches.toArray(CompletableFuture[]::new)).thenApply(v -> {
      for (var b : branches) result.addAll(b.join());
      return result;
    });
  }
}
