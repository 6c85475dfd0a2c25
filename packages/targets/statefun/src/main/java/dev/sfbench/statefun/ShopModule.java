package dev.sfbench.statefun;

import dev.sfbench.statefun.fn.CartFn;
import dev.sfbench.statefun.fn.MicroFn;
import dev.sfbench.statefun.fn.OrderFn;
import dev.sfbench.statefun.fn.ProductFn;
import dev.sfbench.statefun.fn.QueryFn;
import dev.sfbench.statefun.fn.UserFn;
import dev.sfbench.statefun.io.ReplySerializer;
import dev.sfbench.statefun.io.RequestDeserializer;
import java.util.Map;
import org.apache.flink.statefun.sdk.FunctionType;
import org.apache.flink.statefun.sdk.io.Router;
import org.apache.flink.statefun.sdk.kafka.KafkaEgressBuilder;
import org.apache.flink.statefun.sdk.kafka.KafkaIngressBuilder;
import org.apache.flink.statefun.sdk.kafka.KafkaIngressStartupPosition;
import org.apache.flink.statefun.sdk.spi.StatefulFunctionModule;

/**
 * The StateFun module: the entity functions, the Kafka ingress of requests
 * (routed by type to the function and key they address) and the Kafka egress
 * of answers. Found by StateFun through META-INF/services.
 */
public final class ShopModule implements StatefulFunctionModule {
  @Override
  public void configure(Map<String, String> globalConfiguration, Binder binder) {
    Config config = Config.get();
    binder.bindFunctionProvider(Ids.PRODUCT, type -> new ProductFn());
    binder.bindFunctionProvider(Ids.USER, type -> new UserFn());
    binder.bindFunctionProvider(Ids.CART, type -> new CartFn());
    binder.bindFunctionProvider(Ids.ORDER, type -> new OrderFn());
    binder.bindFunctionProvider(Ids.QUERY, type -> new QueryFn());
    binder.bindFunctionProvider(Ids.MICRO, type -> new MicroFn());

    binder.bindIngress(
        KafkaIngressBuilder.forIdentifier(Ids.REQUESTS)
            .withKafkaAddress(config.brokers)
            .withTopic(config.ingressTopic)
            .withConsumerGroupId(config.consumerGroup)
            .withDeserializer(RequestDeserializer.class)
            // a fresh start reads its (new) topic from the beginning; a restore resumes at the checkpointed offsets
            .withStartupPosition(KafkaIngressStartupPosition.fromEarliest())
            .withProperty("fetch.max.wait.ms", "50")
            .build());
    binder.bindIngressRouter(Ids.REQUESTS, new RequestRouter());

    binder.bindEgress(
        KafkaEgressBuilder.forIdentifier(Ids.REPLIES)
            .withKafkaAddress(config.brokers)
            .withSerializer(ReplySerializer.class)
            // answers are sent at once; a replay after a restore may repeat some, which the gateway ignores
            .withAtLeastOnceProducerSemantics()
            .withProperty("linger.ms", "0")
            .build());
  }

  /** Sends each request to the function its type names ("product.get" -> product), keyed by the request's key. */
  static final class RequestRouter implements Router<Msg> {
    @Override
    public void route(Msg m, Downstream<Msg> downstream) {
      FunctionType target =
          switch (m.type.substring(0, Math.max(0, m.type.indexOf('.')))) {
            case "product" -> Ids.PRODUCT;
            case "user" -> Ids.USER;
            case "cart" -> Ids.CART;
            case "order" -> Ids.ORDER;
            case "query" -> Ids.QUERY;
            case "micro" -> Ids.MICRO;
            default -> null;
          };
      if (target == null) System.err.println("statefun: dropping a request of unknown type " + m.type);
      else downstream.forward(target, m.key, m);
    }
  }
}
