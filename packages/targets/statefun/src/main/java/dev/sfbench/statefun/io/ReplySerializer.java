package dev.sfbench.statefun.io;

import dev.sfbench.statefun.Config;
import dev.sfbench.statefun.Json;
import dev.sfbench.statefun.Reply;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.clients.producer.ProducerRecord;

/** Egress records: {"id", "status", "body"} as JSON, on STATEFUN_EGRESS_TOPIC. */
public final class ReplySerializer implements org.apache.flink.statefun.sdk.kafka.KafkaEgressSerializer<Reply> {
  private static final long serialVersionUID = 1;

  @Override
  public ProducerRecord<byte[], byte[]> serialize(Reply reply) {
    return new ProducerRecord<>(Config.get().egressTopic, Json.write(reply).getBytes(StandardCharsets.UTF_8));
  }
}
