package dev.sfbench.statefun;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.Comparator;
import java.util.Optional;
import java.util.stream.Stream;
import org.apache.flink.statefun.flink.harness.Harness;

/**
 * The JVM's entry point: runs the StateFun job on a local Flink MiniCluster
 * (statefun-flink-harness) with exactly-once checkpoints of the functions'
 * state and the ingress offsets under $SFBENCH_DATA_DIR/checkpoints, and
 * restores the newest complete checkpoint found there (a restart after a crash).
 */
public final class Main {
  private Main() {}

  public static void main(String[] args) throws Exception {
    Config config;
    try {
      config = Config.get();
    } catch (IllegalArgumentException e) {
      System.err.println("statefun: " + e.getMessage());
      System.exit(2);
      return;
    }
    if (config.trace) Spans.enable();
    Path checkpoints = config.dataDir.resolve("checkpoints").toAbsolutePath();
    Files.createDirectories(checkpoints);

    Harness harness =
        new Harness()
            .withKryoMessageSerializer()
            .withFlinkJobName("sfbench-statefun")
            .withParallelism(config.parallelism)
            // latency: ship network buffers after 1 ms instead of waiting for them to fill
            .withConfiguration("execution.buffer-timeout", "1ms")
            .withConfiguration("execution.checkpointing.interval", config.checkpointMs + "ms")
            .withConfiguration("execution.checkpointing.mode", "EXACTLY_ONCE")
            .withConfiguration("execution.checkpointing.externalized-checkpoint-retention", "RETAIN_ON_CANCELLATION")
            .withConfiguration("state.backend", "hashmap")
            .withConfiguration("state.checkpoints.dir", checkpoints.toUri().toString())
            .withConfiguration("state.checkpoints.num-retained", "2")
            // a failing job retries twice from its last checkpoint, then the JVM exits and the target is down
            .withConfiguration("restart-strategy", "fixed-delay")
            .withConfiguration("restart-strategy.fixed-delay.attempts", "2")
            .withConfiguration("restart-strategy.fixed-delay.delay", "1s")
            // everything on loopback, on ports the system picks
            .withConfiguration("rest.bind-address", "127.0.0.1")
            .withConfiguration("rest.address", "127.0.0.1")
            .withConfiguration("rest.bind-port", "0")
            .withConfiguration("jobmanager.rpc.address", "127.0.0.1")
            .withConfiguration("jobmanager.bind-host", "127.0.0.1")
            .withConfiguration("taskmanager.host", "127.0.0.1")
            .withConfiguration("taskmanager.bind-host", "127.0.0.1")
            .withConfiguration("taskmanager.data.port", "0")
            .withConfiguration("taskmanager.rpc.port", "0");

    Optional<Path> restore = latestCheckpoint(checkpoints);
    if (restore.isPresent()) {
      System.err.println("statefun: restoring from " + restore.get());
      harness.withSavepointLocation(restore.get().toUri().toString());
      dropOtherJobs(checkpoints, restore.get().getParent());
    }
    System.err.println("statefun: starting the job (checkpoint every " + config.checkpointMs + " ms, parallelism " + config.parallelism + ")");
    harness.start();
  }

  /** The newest chk-N directory with a _metadata file (a complete checkpoint) under any job's directory. */
  static Optional<Path> latestCheckpoint(Path root) throws IOException {
    try (Stream<Path> metadata = Files.find(root, 3, (p, a) -> p.getFileName().toString().equals("_metadata") && p.getParent().getFileName().toString().startsWith("chk-"))) {
      return metadata.max(Comparator.comparing(Main::modified)).map(Path::getParent);
    }
  }

  private static FileTime modified(Path p) {
    try {
      return Files.getLastModifiedTime(p);
    } catch (IOException e) {
      return FileTime.fromMillis(0);
    }
  }

  /** Checkpoints of earlier jobs other than the one restored from: never needed again. */
  private static void dropOtherJobs(Path root, Path keepJob) throws IOException {
    try (Stream<Path> jobs = Files.list(root)) {
      for (Path job : jobs.filter(p -> Files.isDirectory(p) && !p.equals(keepJob)).toList()) deleteTree(job);
    }
  }

  private static void deleteTree(Path dir) throws IOException {
    try (Stream<Path> all = Files.walk(dir)) {
      for (Path p : all.sorted(Comparator.reverseOrder()).toList()) Files.deleteIfExists(p);
    }
  }
}
