package dev.sfbench.statefun.io;

import dev.sfbench.statefun.Json;
import dev.sfbench.statefun.Msg;
import java.io.IOException;
import org.apache.flink.statefun.sdk.kafka.KafkaIngressDeserializer;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/** Ingress records are the gateway's requests as JSON objects with the fields of {@link Msg}. */
public final class RequestDeserializer implements KafkaIngressDeserializer<Msg> {
  private static final long serialVersionUID = 1;

  @Override
  public Msg deserialize(ConsumerRecord<byte[], byte[]> input) {
    try {
      Msg m = Json.MAPPER.readValue(input.value(), Msg.class);
      return m.type == null || m.key == null ? null : m;
    } catch (IOException e) {
      // not a request of the gateway (nothing else writes this topic): skipped
      System.err.println("statefun: skipping an ingress record that is not a request: " + e.getMessage());
      return null;
    }
  }
}
