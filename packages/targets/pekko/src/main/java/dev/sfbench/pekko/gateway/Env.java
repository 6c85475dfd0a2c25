package dev.sfbench.pekko.gateway;

import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * What the runner passes (docs/targets.md): PORT, HOST, DATABASE_URL,
 * SFBENCH_TRACE and, for a node of a multi-node start, SFBENCH_CLUSTER_PORT
 * and SFBENCH_CLUSTER_PEERS (node 0 first). Without them the process is a
 * cluster of one on a free remoting port.
 */
public record Env(String host, int port, String jdbcUrl, String dbUser, String dbPassword, boolean trace, int clusterPort, List<String> peers) {
  public static Env read() {
    String database = System.getenv("DATABASE_URL");
    if (database == null || database.isBlank()) throw new IllegalArgumentException("DATABASE_URL: required, a postgres:// URL of the target's PostgreSQL");
    URI uri = URI.create(database);
    String user = "postgres";
    String password = "";
    if (uri.getRawUserInfo() != null) {
      String[] parts = uri.getRawUserInfo().split(":", 2);
      user = URLDecoder.decode(parts[0], StandardCharsets.UTF_8);
      if (parts.length > 1) password = URLDecoder.decode(parts[1], StandardCharsets.UTF_8);
    }
    String jdbc = "jdbc:postgresql://" + uri.getHost() + ":" + (uri.getPort() > 0 ? uri.getPort() : 5432) + uri.getRawPath() + (uri.getRawQuery() != null ? "?" + uri.getRawQuery() : "");
    List<String> peers = new ArrayList<>();
    String rawPeers = System.getenv("SFBENCH_CLUSTER_PEERS");
    if (rawPeers != null) for (String p : rawPeers.split(",")) if (!p.isBlank()) peers.add(p.trim());
    return new Env(
        System.getenv().getOrDefault("HOST", "127.0.0.1"),
        Integer.parseInt(System.getenv().getOrDefault("PORT", "18910")),
        jdbc,
        user,
        password,
        "1".equals(System.getenv("SFBENCH_TRACE")),
        Integer.parseInt(System.getenv().getOrDefault("SFBENCH_CLUSTER_PORT", "0")),
        peers);
  }
}
