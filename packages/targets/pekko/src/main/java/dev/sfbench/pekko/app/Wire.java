package dev.sfbench.pekko.app;

/**
 * Marker of every message, event and snapshot that may leave the JVM (to
 * another cluster member or into the journal): application.conf binds it to
 * Pekko's Jackson CBOR serializer.
 */
public interface Wire {}
