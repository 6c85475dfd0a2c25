package dev.sfbench.statefun;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The job's environment, read and checked once (the launcher sets it). A
 * missing or malformed variable stops the JVM with a message naming it.
 */
public final class Config {
  public final String brokers;
  public final String ingressTopic;
  public final String egressTopic;
  public final String consumerGroup;
  public final Path dataDir;
  public final long checkpointMs;
  public final int parallelism;
  public final boolean trace;

  private Config(Map<String, String> env) {
    List<String> problems = new ArrayList<>();
    brokers = required(env, "KAFKA_BROKERS", problems);
    ingressTopic = required(env, "STATEFUN_INGRESS_TOPIC", problems);
    egressTopic = required(env, "STATEFUN_EGRESS_TOPIC", problems);
    consumerGroup = required(env, "STATEFUN_CONSUMER_GROUP", problems);
    String data = required(env, "SFBENCH_DATA_DIR", problems);
    dataDir = data == null ? null : Path.of(data);
    checkpointMs = number(env, "STATEFUN_CHECKPOINT_MS", 5000, 100, 3_600_000, problems);
    parallelism = (int) number(env, "STATEFUN_PARALLELISM", 1, 1, 64, problems);
    String t = env.getOrDefault("SFBENCH_TRACE", "0");
    trace = t.equals("1") || t.equals("true");
    if (!problems.isEmpty()) throw new IllegalArgumentException("invalid environment: " + String.join("; ", problems));
  }

  private static String required(Map<String, String> env, String name, List<String> problems) {
    String v = env.get(name);
    if (v == null || v.isBlank()) {
      problems.add(name + " is required");
      return null;
    }
    return v;
  }

  private static long number(Map<String, String> env, String name, long dflt, long min, long max, List<String> problems) {
    String v = env.get(name);
    if (v == null || v.isBlank()) return dflt;
    try {
      long n = Long.parseLong(v.trim());
      if (n >= min && n <= max) return n;
    } catch (NumberFormatException e) {
      // reported below
    }
    problems.add(name + " must be an integer from " + min + " to " + max + ", got \"" + v + "\"");
    return dflt;
  }

  private static volatile Config current;

  /** The environment of this JVM (read on first use). */
  public static Config get() {
    if (current == null) {
      synchronized (Config.class) {
        if (current == null) current = new Config(System.getenv());
      }
    }
    return current;
  }
}
