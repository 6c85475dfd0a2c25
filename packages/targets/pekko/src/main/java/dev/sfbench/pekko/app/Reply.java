package dev.sfbench.pekko.app;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * An entity's answer, passed on by the gateway as the HTTP answer: a status
 * and either a JSON body (200) or an error code and message (SPEC 2).
 */
public record Reply(int status, String error, String message, JsonNode body) implements Wire {
  public static Reply ok(JsonNode body) {
    return new Reply(200, null, null, body);
  }

  public static Reply ok() {
    return new Reply(200, null, null, null);
  }

  public static Reply notFound(String what) {
    return new Reply(404, "not-found", what + " not found", null);
  }

  public static Reply conflict(String code, String message) {
    return new Reply(409, code, message, null);
  }

  public boolean isOk() {
    return status == 200;
  }
}
