package dev.sfbench.statefun;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

/** One shared Jackson mapper; bodies are built as ObjectNodes so that field order is fixed. */
public final class Json {
  private Json() {}

  public static final ObjectMapper MAPPER =
      new ObjectMapper().configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);

  public static ObjectNode object() {
    return MAPPER.createObjectNode();
  }

  public static String write(Object value) {
    try {
      return MAPPER.writeValueAsString(value);
    } catch (Exception e) {
      throw new IllegalStateException("cannot write JSON", e);
    }
  }

  /** {"error": code, "message": message} */
  public static String error(String code, String message) {
    ObjectNode node = object();
    node.put("error", code);
    node.put("message", message);
    return write(node);
  }
}
