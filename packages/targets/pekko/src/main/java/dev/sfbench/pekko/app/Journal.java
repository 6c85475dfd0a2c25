package dev.sfbench.pekko.app;

import org.apache.pekko.persistence.typed.PersistenceId;

/** Where an entity's events are journaled. */
public final class Journal {
  private Journal() {}

  /**
   * "type|id", as PersistenceId.of builds it, but without its refusal of ids
   * that contain "|" (SPEC 2 allows any character but NUL in an id); the type
   * never contains "|", so the first one still separates the two.
   */
  public static PersistenceId id(String type, String entityId) {
    return PersistenceId.ofUniqueId(type + "|" + entityId);
  }
}
