package dev.sfbench.pekko.gateway;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * Creates pekko-persistence-jdbc's tables before the journal is used. Members
 * starting together take an advisory lock so that two CREATE TABLE IF NOT
 * EXISTS of the same table do not race (PostgreSQL can fail one of them on
 * its catalog's unique index).
 */
public final class Schema {
  private static final long LOCK = 0x5fbe7c4L;

  private Schema() {}

  public static void create(Env env) throws SQLException, IOException {
    String sql;
    try (InputStream in = Schema.class.getResourceAsStream("/schema.sql")) {
      sql = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
    try (Connection c = DriverManager.getConnection(env.jdbcUrl(), env.dbUser(), env.dbPassword()); Statement st = c.createStatement()) {
      st.execute("SELECT pg_advisory_lock(" + LOCK + ")");
      try {
        st.execute(sql);
      } finally {
        st.execute("SELECT pg_advisory_unlock(" + LOCK + ")");
      }
    }
  }
}
