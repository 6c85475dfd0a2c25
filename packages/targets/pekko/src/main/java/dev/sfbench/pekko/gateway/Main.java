package dev.sfbench.pekko.gateway;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigValueFactory;
import dev.sfbench.pekko.app.Cart;
import dev.sfbench.pekko.app.Micro;
import dev.sfbench.pekko.app.Order;
import dev.sfbench.pekko.app.OrderView;
import dev.sfbench.pekko.app.PingPong;
import dev.sfbench.pekko.app.Product;
import dev.sfbench.pekko.app.Reads;
import dev.sfbench.pekko.app.Reply;
import dev.sfbench.pekko.app.Spans;
import dev.sfbench.pekko.app.User;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.SpawnProtocol;
import org.apache.pekko.cluster.MemberStatus;
import org.apache.pekko.cluster.sharding.typed.ClusterShardingSettings;
import org.apache.pekko.cluster.sharding.typed.javadsl.ClusterSharding;
import org.apache.pekko.cluster.sharding.typed.javadsl.Entity;
import org.apache.pekko.cluster.typed.Cluster;
import org.apache.pekko.cluster.typed.Join;
import org.apache.pekko.http.javadsl.Http;
import org.apache.pekko.http.javadsl.model.HttpMethod;
import org.apache.pekko.http.javadsl.model.HttpMethods;
import org.apache.pekko.http.javadsl.model.RequestEntityAcceptances;
import org.apache.pekko.http.javadsl.settings.ParserSettings;
import org.apache.pekko.http.javadsl.settings.ServerSettings;
import org.apache.pekko.stream.Materializer;

/**
 * One cluster member: creates the journal's tables, joins the cluster (the
 * seed nodes are the runner's SFBENCH_CLUSTER_PEERS, node 0 first), starts
 * sharding for every entity type and serves the HTTP API on PORT.
 */
public final class Main {
  /** One entity ask of the gateway, other than a shop entity's read (those are asked again: Reads). */
  private static final Duration ASK = Duration.ofSeconds(15);
  /** A checkout: the saga's asks may be repeated while a killed member's shards move (Tuning.SAGA_ASK). */
  private static final Duration CHECKOUT = Duration.ofSeconds(30);

  private Main() {}

  public static void main(String[] args) throws Exception {
    Env env = Env.read();
    Spans.enable(env.trace());
    Schema.create(env);
    List<String> seeds = new ArrayList<>();
    for (String peer : env.peers()) seeds.add("pekko://sfbench@" + peer);
    Config config = ConfigFactory.empty()
        .withValue("pekko.remote.artery.canonical.port", ConfigValueFactory.fromAnyRef(env.clusterPort()))
        .withValue("pekko.cluster.seed-nodes", ConfigValueFactory.fromIterable(seeds))
        .withValue("pekko-persistence-jdbc.shared-databases.shop.db.url", ConfigValueFactory.fromAnyRef(env.jdbcUrl()))
        .withValue("pekko-persistence-jdbc.shared-databases.shop.db.user", ConfigValueFactory.fromAnyRef(env.dbUser()))
        .withValue("pekko-persistence-jdbc.shared-databases.shop.db.password", ConfigValueFactory.fromAnyRef(env.dbPassword()))
        .withFallback(ConfigFactory.load());
    ActorSystem<SpawnProtocol.Command> system = ActorSystem.create(SpawnProtocol.create(), "sfbench", config);
    Cluster cluster = Cluster.get(system);
    if (seeds.isEmpty()) cluster.manager().tell(Join.create(cluster.selfMember().address()));

    ClusterSharding sharding = ClusterSharding.get(system);
    sharding.init(Entity.of(Product.KEY, ctx -> Product.create(ctx.getEntityId())));
    sharding.init(Entity.of(User.KEY, ctx -> User.create(ctx.getEntityId())));
    sharding.init(Entity.of(Cart.KEY, ctx -> Cart.create(ctx.getEntityId())));
    // orders are remembered: a saga cut off by a crash is restarted by sharding and resumes from its journal
    sharding.init(Entity.of(Order.KEY, ctx -> Order.create(ctx.getEntityId(), ctx.getShard()))
        .withSettings(ClusterShardingSettings.create(system).withRememberEntities(true)));
    sharding.init(Entity.of(Micro.KEY, ctx -> Micro.create(ctx.getEntityId())));
    sharding.init(Entity.of(PingPong.KEY, ctx -> PingPong.create(ctx.getEntityId())));

    Materializer materializer = Materializer.matFromSystem(system);
    List<Route> routes = new ArrayList<>(new Shop(sharding, new Reads(system), new OrderView(system, materializer), ASK, CHECKOUT).routes());
    routes.addAll(new MicroRoutes(system, sharding, ASK).routes());
    String probe = "health-probe-" + env.port();
    Gateway gateway = new Gateway(routes, materializer, () -> {
      if (cluster.selfMember().status() != MemberStatus.up()) return CompletableFuture.completedFuture(false);
      // up, and sharding answers: the coordinator is reachable and a product entity replays from the journal
      CompletionStage<Reply> asked = sharding.entityRefFor(Product.KEY, probe).ask(to -> new Product.Get(null, to), Duration.ofSeconds(5));
      return asked.handle((r, e) -> e == null);
    });
    // pekko-http's parser answers 501 to a method it does not know; QUERY (the safe method with a body
    // HTTP is adding) is let through so that it gets the 405 of a known path like any other method
    HttpMethod query = HttpMethods.custom("QUERY", true, true, RequestEntityAcceptances.Expected);
    ServerSettings settings = ServerSettings.create(system.classicSystem()).withParserSettings(ParserSettings.forServer(system).withCustomMethods(query));
    Http.get(system).newServerAt(env.host(), env.port()).withSettings(settings).bind(gateway::handle).toCompletableFuture().get();
    System.err.println("pekko: member " + cluster.selfMember().address() + " serving http://" + env.host() + ":" + env.port());
  }
}
