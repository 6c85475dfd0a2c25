package dev.sfbench.pekko.gateway;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.sfbench.pekko.app.Cart;
import dev.sfbench.pekko.app.FreqItems;
import dev.sfbench.pekko.app.Order;
import dev.sfbench.pekko.app.OrderView;
import dev.sfbench.pekko.app.Product;
import dev.sfbench.pekko.app.Reads;
import dev.sfbench.pekko.app.Reply;
import dev.sfbench.pekko.app.User;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.pekko.cluster.sharding.typed.javadsl.ClusterSharding;

/** The SPEC 2 routes: each validates its input and asks the entity that owns the id (wherever sharding placed it). */
public final class Shop {
  private final ClusterSharding sharding;
  private final Duration timeout;
  private final Duration checkoutTimeout;
  private final Reads reads;
  private final FreqItems freqItems;
  private final OrderView orders;

  public Shop(ClusterSharding sharding, Reads reads, OrderView orders, Duration timeout, Duration checkoutTimeout) {
    this.sharding = sharding;
    this.reads = reads;
    this.orders = orders;
    this.timeout = timeout;
    this.checkoutTimeout = checkoutTimeout;
    this.freqItems = new FreqItems(sharding, reads);
  }

  public List<Route> routes() {
    return List.of(
        Route.of("POST", "/products", "product", "create", this::createProduct),
        Route.of("PATCH", "/products/*", "product", "upsert", this::patchProduct),
        Route.of("GET", "/products/*", "product", "get", r -> reads.ask(t -> sharding.entityRefFor(Product.KEY, r.id()).ask(to -> new Product.Get(r.trace(), to), t))),
        Route.of("GET", "/products/*/freq-items", "product", "freqItems", this::freq),
        Route.of("POST", "/users", "user", "create", this::createUser),
        Route.of("GET", "/users/*", "user", "get", r -> reads.ask(t -> sharding.entityRefFor(User.KEY, r.id()).ask(to -> new User.Get(r.trace(), to), t))),
        Route.of("PATCH", "/users/*/credits/add", "user", "addCredits", this::addCredits),
        Route.of("POST", "/shopping-carts", "cart", "create", this::createCart),
        Route.of("GET", "/shopping-carts/*", "cart", "get", r -> reads.ask(t -> sharding.entityRefFor(Cart.KEY, r.id()).ask(to -> new Cart.Get(r.trace(), to), t))),
        Route.of("POST", "/shopping-carts/*/products", "cart", "addProduct", this::addToCart),
        Route.of("POST", "/orders/checkout", "order", "checkout", this::checkout),
        Route.of("GET", "/orders/*", "order", "get", r -> orders.read(r.id())));
  }

  private static CompletionStage<Reply> created(CompletionStage<Reply> write, String id) {
    return write.thenApply(r -> r.isOk() ? Reply.ok(TextNode.valueOf(id)) : r);
  }

  private CompletionStage<Reply> createProduct(Request r) {
    JsonNode body = Validate.object(r.body(), true);
    Long price = Validate.integer(body, "price", 0, Validate.MAX_INT, false).orElse(0L);
    Long stock = Validate.integer(body, "stock", 0, Validate.MAX_INT, false).orElse(0L);
    String id = UUID.randomUUID().toString();
    return created(sharding.entityRefFor(Product.KEY, id).ask(to -> new Product.Upsert(price, stock, r.trace(), to), timeout), id);
  }

  private CompletionStage<Reply> patchProduct(Request r) {
    JsonNode body = Validate.object(r.body(), true);
    Long price = Validate.integer(body, "price", 0, Validate.MAX_INT, false).orElse(null);
    Long stock = Validate.integer(body, "stock", 0, Validate.MAX_INT, false).orElse(0L);
    return created(sharding.entityRefFor(Product.KEY, r.id()).ask(to -> new Product.Upsert(price, stock, r.trace(), to), timeout), r.id());
  }

  private CompletionStage<Reply> freq(Request r) {
    int top = (int) Validate.query(r.param("top"), "top", 1, 100, 3);
    int depth = (int) Validate.query(r.param("depth"), "depth", 1, 20, 1);
    return freqItems.query(r.id(), top, depth, r.trace());
  }

  private CompletionStage<Reply> createUser(Request r) {
    long credits = Validate.integer(Validate.object(r.body(), true), "credits", 0, Validate.MAX_INT, false).orElse(0L);
    String id = UUID.randomUUID().toString();
    return created(sharding.entityRefFor(User.KEY, id).ask(to -> new User.Create(credits, r.trace(), to), timeout), id);
  }

  private CompletionStage<Reply> addCredits(Request r) {
    long credits = Validate.integer(Validate.object(r.body(), false), "credits", 1, Validate.MAX_INT, true).get();
    return sharding.entityRefFor(User.KEY, r.id()).ask(to -> new User.AddCredits(credits, r.trace(), to), timeout);
  }

  private CompletionStage<Reply> createCart(Request r) {
    String id = UUID.randomUUID().toString();
    return created(sharding.entityRefFor(Cart.KEY, id).ask(to -> new Cart.Create(r.trace(), to), timeout), id);
  }

  /**
   * 404 for an unknown product before the cart is asked: carts only hold
   * products that exist. The product's read is asked again like any read; the
   * cart's add is a write and is asked once.
   */
  private CompletionStage<Reply> addToCart(Request r) {
    JsonNode body = Validate.object(r.body(), false);
    String productId = Validate.idField(body, "productId");
    long amount = Validate.integer(body, "amount", 1, Validate.MAX_INT, true).get();
    return reads.<Reply>ask(t -> sharding.entityRefFor(Product.KEY, productId).ask(to -> new Product.Get(r.trace(), to), t)).thenCompose(p -> {
      if (!p.isOk()) return CompletableFuture.completedFuture(p);
      return sharding.entityRefFor(Cart.KEY, r.id()).<Reply>ask(to -> new Cart.Add(productId, amount, r.trace(), to), timeout);
    });
  }

  /** A new order entity runs the saga and answers when steps 1-5 are done. */
  private CompletionStage<Reply> checkout(Request r) {
    JsonNode body = Validate.object(r.body(), false);
    String cartId = Validate.idField(body, "cartId");
    String userId = Validate.idField(body, "userId");
    String orderId = UUID.randomUUID().toString();
    return sharding.entityRefFor(Order.KEY, orderId).ask(to -> new Order.Checkout(cartId, userId, r.trace(), to), checkoutTimeout);
  }
}
