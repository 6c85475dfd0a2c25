package dev.sfbench.pekko.gateway;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.math.BigDecimal;
import java.util.Optional;

/** SPEC 2's input rules: JSON object bodies, integer fields in range, ids of 1-128 characters without NUL. */
public final class Validate {
  public static final long MAX_INT = Integer.MAX_VALUE;
  public static final int MAX_ID = 128;
  private static final ObjectMapper STRICT = new ObjectMapper().enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS).enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS).enable(DeserializationFeature.USE_BIG_INTEGER_FOR_INTS);

  private Validate() {}

  /** The body as a JSON object; an empty body is {} when every field is optional. */
  public static JsonNode object(String body, boolean optional) {
    if (body.isBlank()) {
      if (optional) return STRICT.createObjectNode();
      throw new BadRequest("body: a JSON object is required");
    }
    JsonNode node;
    try {
      node = STRICT.readTree(body);
    } catch (JsonProcessingException e) {
      throw new BadRequest("body: malformed JSON: " + e.getOriginalMessage());
    }
    if (node == null || !node.isObject()) throw new BadRequest("body: must be a JSON object, got " + (node == null ? "nothing" : node.getNodeType().toString().toLowerCase()));
    return node;
  }

  /** An integer field in [min, max]; empty when absent and not required. */
  public static Optional<Long> integer(JsonNode body, String name, long min, long max, boolean required) {
    JsonNode v = body.get(name);
    if (v == null) {
      if (required) throw new BadRequest(name + ": required, an integer from " + min + " to " + max);
      return Optional.empty();
    }
    String wrong = name + ": must be an integer from " + min + " to " + max + ", got " + v;
    if (!v.isNumber()) throw new BadRequest(wrong);
    BigDecimal d = v.decimalValue();
    if (d.signum() != 0 && d.stripTrailingZeros().scale() > 0) throw new BadRequest(wrong);
    if (d.compareTo(BigDecimal.valueOf(min)) < 0 || d.compareTo(BigDecimal.valueOf(max)) > 0) throw new BadRequest(wrong);
    return Optional.of(d.longValueExact());
  }

  public static String id(String field, String id) {
    if (id.isEmpty() || id.length() > MAX_ID) throw new BadRequest(field + ": must be 1-" + MAX_ID + " characters, got " + id.length());
    if (id.indexOf('\0') >= 0) throw new BadRequest(field + ": must not contain NUL (U+0000)");
    return id;
  }

  public static String idField(JsonNode body, String name) {
    JsonNode v = body.get(name);
    if (v == null) throw new BadRequest(name + ": required, a string id of 1-" + MAX_ID + " characters");
    if (!v.isTextual()) throw new BadRequest(name + ": must be a string id of 1-" + MAX_ID + " characters, got " + v.getNodeType().toString().toLowerCase());
    return id(name, v.asText());
  }

  /** ?name= as an integer in [min, max], `fallback` when absent. */
  public static long query(Optional<String> raw, String name, long min, long max, long fallback) {
    if (raw.isEmpty()) return fallback;
    String s = raw.get().trim();
    try {
      BigDecimal d = new BigDecimal(s);
      if ((d.signum() == 0 || d.stripTrailingZeros().scale() <= 0) && d.compareTo(BigDecimal.valueOf(min)) >= 0 && d.compareTo(BigDecimal.valueOf(max)) <= 0) return d.longValueExact();
    } catch (NumberFormatException | ArithmeticException e) {
      // answered below with the allowed range
    }
    throw new BadRequest(name + ": must be an integer from " + min + " to " + max + ", got \"" + raw.get() + "\"");
  }
}
