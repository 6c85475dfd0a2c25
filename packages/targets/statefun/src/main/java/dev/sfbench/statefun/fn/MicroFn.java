package dev.sfbench.statefun.fn;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sfbench.statefun.Ids;
import dev.sfbench.statefun.Json;
import dev.sfbench.statefun.Msg;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.SplittableRandom;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.IntConsumer;
import org.apache.flink.statefun.sdk.Context;
import org.apache.flink.statefun.sdk.annotations.Persisted;
import org.apache.flink.statefun.sdk.state.PersistedTable;
import org.apache.flink.statefun.sdk.state.PersistedValue;

/**
 * The SPEC 8 microbenchmark entities, one function type keyed by the entity:
 * the invocation-overhead entities (?key=, default "micro"), ping-i and pong-i,
 * the nodes of a divide tree, big-i, and the coordinator of each pingpong and
 * big request. Entities talk only through {@code Context.send} (StateFun
 * messages); a request's answer goes to the Kafka egress like every other.
 *
 * <p>handlerNs is System.nanoTime() inside the function: one invocation for
 * empty, math and io; for sleep, from the invocation that got the request to
 * the delayed message that answers it; for pingpong, divide and big, from the
 * coordinating entity's first invocation to the one that answers (the job is
 * one JVM, so nanoTime readings of different invocations compare).
 */
public final class MicroFn extends ShopFunction {
  /** SPEC 8's round-trip histogram: upper bounds 1, 2, 5 x 10^k ns for k = 3..9, then one bucket for longer. */
  public static final long[] BOUNDS = bounds();

  public static final long CHECKSUM_MODULUS = (1L << 31) - 1;

  /** A ping's state: the run it is doing and the runs queued behind it (concurrent pingpong requests). */
  public static final class Ping {
    public Msg current;
    public ArrayList<Msg> queued = new ArrayList<>();
    public int done;
    public long sentNs;
    public long startNs;
    public long[] hist;

    public Ping() {}
  }

  /** A pingpong or big coordinator, or a divide node waiting for its children. */
  public static final class Coordinator {
    public int outstanding;
    public long handlerStart;
    public long firstNs;
    public long lastNs;
    public long sum;
    public long[] hist;
    public int[][] runs;
    public int entities;
    public String parent;
    public int index;
    public String failure;
    /** the request's correlation id and size, for the answer */
    public String corr;
    public int messages;
    public int pairs;
    public int bytes;

    public Coordinator() {}
  }

  @Persisted private final PersistedValue<byte[]> payload = PersistedValue.of("micro-payload", byte[].class);
  @Persisted private final PersistedValue<Ping> ping = PersistedValue.of("micro-ping", Ping.class);
  @Persisted private final PersistedValue<Coordinator> coordinator = PersistedValue.of("micro-coordinator", Coordinator.class);
  /** big: messages received per round, and how many the round sends here (once its await arrived) */
  @Persisted private final PersistedTable<String, Long> received = PersistedTable.of("micro-received", String.class, Long.class);
  @Persisted private final PersistedTable<String, Long> expected = PersistedTable.of("micro-expected", String.class, Long.class);

  public MicroFn() {
    super(null);
  }

  @Override
  protected void handle(Context c, Msg m) {
    long start = System.nanoTime();
    switch (m.type) {
      case "micro.empty" -> {
        ObjectNode body = Json.object();
        ok(c, m, withHandler(body, start));
      }
      case "micro.math" -> {
        ThreadLocalRandom rng = ThreadLocalRandom.current();
        long inside = 0;
        for (int i = 0; i < m.n; i++) {
          double x = rng.nextDouble(), y = rng.nextDouble();
          if (x * x + y * y <= 1) inside++;
        }
        ObjectNode body = Json.object();
        body.put("n", m.n);
        body.put("pi", 4.0 * inside / m.n);
        ok(c, m, withHandler(body, start));
      }
      case "micro.sleep" -> {
        // a delayed message to itself answers: the function takes its next message at once
        Msg wake = m.follow("micro.wake");
        wake.ms = m.ms;
        wake.startNs = start;
        c.sendAfter(Duration.ofMillis(m.ms), c.self(), wake);
      }
      case "micro.wake" -> {
        ObjectNode body = Json.object();
        body.put("ms", m.ms);
        ok(c, m, withHandler(body, m.startNs));
      }
      case "micro.io" -> io(c, m, start);
      case "micro.pingpong" -> pingpong(c, m, start);
      case "micro.ping" -> {
        Ping p = ping.getOrDefault(new Ping());
        p.queued.add(m);
        if (p.current == null) startPing(c, p);
        ping.set(p);
      }
      case "micro.pong" -> {
        Msg back = m.follow("micro.pongBack");
        back.payload = m.payload;
        c.send(c.caller(), back);
      }
      case "micro.pongBack" -> pongBack(c, m);
      case "micro.pairDone" -> pairDone(c, m);
      case "micro.divide" -> divide(c, m, start);
      case "micro.divided" -> divided(c, m);
      case "micro.big" -> big(c, m, start);
      case "micro.bigSend" -> {
        bigTargets(m.seed, m.index, m.entities, m.count, j -> {
          Msg msg = new Msg();
          msg.type = "micro.bigMsg";
          msg.round = m.round;
          c.send(Ids.MICRO, "big-" + j, msg);
        });
      }
      case "micro.bigMsg" -> {
        Long before = received.get(m.round);
        received.set(m.round, (before == null ? 0L : before) + 1);
        bigCheck(c, m.round);
      }
      case "micro.bigAwait" -> {
        expected.set(m.round, (long) m.expect);
        bigCheck(c, m.round);
      }
      case "micro.bigDone" -> bigDone(c, m);
      default -> unknown(c, m);
    }
  }

  private static ObjectNode withHandler(ObjectNode body, long start) {
    body.put("handlerNs", Math.max(1, System.nanoTime() - start));
    return body;
  }

  /** SPEC 8's payload: byte i is 'a' + i mod 26. */
  public static byte[] pattern(int n) {
    byte[] p = new byte[n];
    for (int i = 0; i < n; i++) p[i] = (byte) ('a' + i % 26);
    return p;
  }

  /** SPEC 8's divide input: x0 = seed, x(k+1) = (1103515245 x(k) + 12345) mod 2^31, x(1..items) mod 1,000,000. */
  public static int[] divideInput(int items, long seed) {
    int[] out = new int[items];
    long x = seed;
    for (int i = 0; i < items; i++) {
      x = (1103515245L * x + 12345L) % (1L << 31);
      out[i] = (int) (x % 1_000_000L);
    }
    return out;
  }

  /** The receivers of big-index's share: entities other than itself, from a generator seeded with (seed, index). */
  public static void bigTargets(long seed, int index, int entities, int count, IntConsumer visit) {
    SplittableRandom rng = new SplittableRandom(seed * 1_000_003L + index);
    for (int k = 0; k < count; k++) {
      int j = rng.nextInt(entities - 1);
      visit.accept(j >= index ? j + 1 : j);
    }
  }

  private static long[] bounds() {
    long[] b = new long[21];
    int i = 0;
    for (long p = 1000; p <= 1_000_000_000L; p *= 10) {
      b[i++] = p;
      b[i++] = 2 * p;
      b[i++] = 5 * p;
    }
    return b;
  }

  static int bucket(long ns) {
    for (int i = 0; i < BOUNDS.length; i++) if (ns <= BOUNDS[i]) return i;
    return BOUNDS.length;
  }

  private void io(Context c, Msg m, long start) {
    payload.set(pattern(m.bytes));
    byte[] read = payload.get();
    String sha;
    try {
      sha = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(read));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("the JVM has no SHA-256", e);
    }
    ObjectNode body = Json.object();
    body.put("key", c.self().id());
    body.put("bytes", read.length);
    body.put("sha256", sha);
    ok(c, m, withHandler(body, start));
  }

  // pingpong: the coordinator (keyed by the correlation id) starts every pair's ping and merges their histograms.

  private void pingpong(Context c, Msg m, long start) {
    Coordinator s = new Coordinator();
    s.handlerStart = start;
    s.outstanding = m.pairs;
    s.pairs = m.pairs;
    s.bytes = m.bytes;
    s.hist = new long[BOUNDS.length + 1];
    s.firstNs = Long.MAX_VALUE;
    s.lastNs = Long.MIN_VALUE;
    coordinator.set(s);
    for (int i = 0; i < m.pairs; i++) {
      Msg run = m.follow("micro.ping");
      run.index = i;
      run.messages = m.messages;
      run.bytes = m.bytes;
      run.round = c.self().id();
      c.send(Ids.MICRO, "ping-" + i, run);
    }
  }

  private void startPing(Context c, Ping p) {
    p.current = p.queued.remove(0);
    p.done = 0;
    p.hist = new long[BOUNDS.length + 1];
    p.startNs = System.nanoTime();
    sendPong(c, p);
  }

  private static void sendPong(Context c, Ping p) {
    Msg out = p.current.follow("micro.pong");
    out.payload = pattern(p.current.bytes);
    p.sentNs = System.nanoTime();
    c.send(Ids.MICRO, "pong-" + p.current.index, out);
  }

  private void pongBack(Context c, Msg m) {
    long now = System.nanoTime();
    Ping p = ping.get();
    if (p == null || p.current == null) return;
    String failure = null;
    int got = m.payload == null ? 0 : m.payload.length;
    if (got != p.current.bytes) failure = "pong-" + p.current.index + " sent back " + got + " bytes, want " + p.current.bytes;
    p.hist[bucket(now - p.sentNs)]++;
    p.done++;
    if (failure == null && p.done < p.current.messages) {
      sendPong(c, p);
    } else {
      Msg done = p.current.follow("micro.pairDone");
      done.hist = p.hist;
      done.startNs = p.startNs;
      done.endNs = now;
      done.message = failure;
      c.send(Ids.MICRO, p.current.round, done);
      p.current = null;
      if (!p.queued.isEmpty()) startPing(c, p);
    }
    ping.set(p);
  }

  private void pairDone(Context c, Msg m) {
    Coordinator s = coordinator.get();
    if (s == null) return;
    if (m.message != null && s.failure == null) s.failure = m.message;
    for (int b = 0; b < s.hist.length; b++) {
      s.hist[b] += m.hist[b];
      s.sum += m.hist[b];
    }
    s.firstNs = Math.min(s.firstNs, m.startNs);
    s.lastNs = Math.max(s.lastNs, m.endNs);
    if (--s.outstanding > 0) {
      coordinator.set(s);
      return;
    }
    coordinator.clear();
    if (s.failure != null) {
      fail(c, m, 500, "internal", s.failure);
      return;
    }
    ObjectNode body = Json.object();
    body.put("pairs", s.pairs);
    body.put("messages", s.sum);
    body.put("bytes", s.bytes);
    body.put("totalNs", s.lastNs - s.firstNs);
    ArrayNode histogram = body.putArray("histogram");
    for (int b = 0; b < s.hist.length; b++) {
      ArrayNode bucket = histogram.addArray();
      if (b < BOUNDS.length) bucket.add(BOUNDS[b]);
      else bucket.addNull();
      bucket.add(s.hist[b]);
    }
    ok(c, m, withHandler(body, s.handlerStart));
  }

  // divide: every node sorts a slice of at most leaf items or sends fanout parts to new child entities and merges their answers.

  private void divide(Context c, Msg m, long start) {
    boolean root = m.values == null;
    int[] values = root ? divideInput(m.count, m.seed) : m.values;
    if (values.length <= m.leaf) {
      int[] sorted = values.clone();
      Arrays.sort(sorted);
      Coordinator leaf = new Coordinator();
      leaf.handlerStart = start;
      leaf.firstNs = start;
      leaf.parent = m.round;
      leaf.index = root ? 0 : m.index;
      leaf.entities = 1;
      finishDivide(c, m, leaf, sorted, root);
      return;
    }
    Coordinator s = new Coordinator();
    s.handlerStart = start;
    s.outstanding = m.fanout;
    s.runs = new int[m.fanout][];
    s.entities = 1;
    s.parent = root ? null : m.round;
    s.index = root ? 0 : m.index;
    s.firstNs = System.nanoTime();
    coordinator.set(s);
    String self = c.self().id();
    for (int i = 0; i < m.fanout; i++) {
      int lo = (int) ((long) values.length * i / m.fanout), hi = (int) ((long) values.length * (i + 1) / m.fanout);
      Msg part = m.follow("micro.divide");
      part.values = Arrays.copyOfRange(values, lo, hi);
      part.fanout = m.fanout;
      part.leaf = m.leaf;
      part.count = m.count;
      part.index = i;
      part.round = self;
      c.send(Ids.MICRO, self + "." + i, part);
    }
  }

  private void divided(Context c, Msg m) {
    Coordinator s = coordinator.get();
    if (s == null) return;
    s.runs[m.index] = m.values;
    s.entities += m.entities;
    if (--s.outstanding > 0) {
      coordinator.set(s);
      return;
    }
    coordinator.clear();
    finishDivide(c, m, s, merge(s.runs), s.parent == null);
  }

  private static void finishDivide(Context c, Msg m, Coordinator s, int[] sorted, boolean root) {
    if (!root) {
      Msg up = m.follow("micro.divided");
      up.values = sorted;
      up.entities = s.entities;
      up.index = s.index;
      c.send(Ids.MICRO, s.parent, up);
      return;
    }
    long total = System.nanoTime() - s.firstNs;
    long checksum = 0;
    for (int i = 0; i < sorted.length; i++) checksum = (checksum + (long) sorted[i] * (i + 1)) % CHECKSUM_MODULUS;
    ObjectNode body = Json.object();
    body.put("items", sorted.length);
    body.put("first", sorted[0]);
    body.put("last", sorted[sorted.length - 1]);
    body.put("checksum", checksum);
    body.put("entities", s.entities);
    body.put("totalNs", Math.max(1, total));
    ok(c, m, withHandler(body, s.handlerStart));
  }

  /** Merges sorted runs pairwise (the fan-in of a node's children). */
  static int[] merge(int[][] runs) {
    ArrayList<int[]> level = new ArrayList<>(Arrays.asList(runs));
    while (level.size() > 1) {
      ArrayList<int[]> next = new ArrayList<>();
      for (int i = 0; i + 1 < level.size(); i += 2) {
        int[] a = level.get(i), b = level.get(i + 1), out = new int[a.length + b.length];
        int x = 0, y = 0, k = 0;
        while (x < a.length && y < b.length) out[k++] = a[x] <= b[y] ? a[x++] : b[y++];
        while (x < a.length) out[k++] = a[x++];
        while (y < b.length) out[k++] = b[y++];
        next.add(out);
      }
      if (level.size() % 2 == 1) next.add(level.get(level.size() - 1));
      level = next;
    }
    return level.get(0);
  }

  // big: the coordinator (its key is the round) tells every entity how many messages it will receive, then has every entity send its share.

  private void big(Context c, Msg m, long start) {
    int n = m.entities;
    long[] expect = new long[n];
    for (int i = 0; i < n; i++) bigTargets(m.seed, i, n, share(m.messages, n, i), j -> expect[j]++);
    Coordinator s = new Coordinator();
    s.handlerStart = start;
    s.outstanding = n;
    s.entities = n;
    s.messages = m.messages;
    s.corr = m.corr;
    s.firstNs = System.nanoTime();
    coordinator.set(s);
    String round = c.self().id();
    for (int j = 0; j < n; j++) {
      Msg await = m.follow("micro.bigAwait");
      await.round = round;
      await.expect = (int) expect[j];
      c.send(Ids.MICRO, "big-" + j, await);
    }
    for (int i = 0; i < n; i++) {
      Msg send = m.follow("micro.bigSend");
      send.round = round;
      send.index = i;
      send.count = share(m.messages, n, i);
      send.entities = n;
      send.seed = m.seed;
      c.send(Ids.MICRO, "big-" + i, send);
    }
  }

  private static int share(int messages, int entities, int i) {
    return messages / entities + (i < messages % entities ? 1 : 0);
  }

  private void bigCheck(Context c, String round) {
    Long want = expected.get(round);
    Long count = received.get(round);
    long got = count == null ? 0 : count;
    if (want == null || got < want) return;
    Msg done = new Msg();
    done.type = "micro.bigDone";
    done.count = (int) got;
    c.send(Ids.MICRO, round, done);
    expected.remove(round);
    received.remove(round);
  }

  private void bigDone(Context c, Msg m) {
    Coordinator s = coordinator.get();
    if (s == null) return;
    s.sum += m.count;
    if (--s.outstanding > 0) {
      coordinator.set(s);
      return;
    }
    coordinator.clear();
    ObjectNode body = Json.object();
    body.put("entities", s.entities);
    body.put("messages", s.messages);
    body.put("delivered", s.sum);
    body.put("totalNs", System.nanoTime() - s.firstNs);
    Msg request = new Msg();
    request.corr = s.corr;
    ok(c, request, withHandler(body, s.handlerStart));
  }
}
