package dev.sfbench.pekko.gateway;

/** A request that breaks SPEC 2's input rules: answered 400 with a message naming the field. */
public final class BadRequest extends RuntimeException {
  public BadRequest(String message) {
    super(message, null, false, false);
  }
}
