/**
 * A bundled target as processes on this machine, as the experiment engine
 * takes any target (core's TargetProvider): started fresh from its
 * target.json with its own PostgreSQL, its node processes' trees as the cost,
 * its log for span lines; stopped with everything it started.
 */
import type { TargetManifest, TargetProvider } from "@sfbench/core";
import { localTargetControl } from "./control.ts";
import { startTarget, stopTarget } from "./run.ts";
import { nodeLogs } from "./nodes.ts";
import { restoreTarget, snapshotTarget } from "./snapshot.ts";
import { storageFingerprint } from "./storage.ts";

/**
 * `nodes`: start it as that many node processes (a target that runs as
 * nodes; 1 starts it as node 0 of 1, which scale-up grows); absent: as its
 * manifest starts it.
 */
export function localTargetProvider(manifest: TargetManifest, opts: { targetsRoot?: string | undefined; nodes?: number | undefined } = {}): TargetProvider {
  // the next start starts on a restored snapshot's data instead of empty data
  let restored = false;
  return {
    describe: `bundled ${manifest.name} as processes`,
    async start({ trace, cores, onProgress }) {
      const keep = restored;
      restored = false;
      const t = await startTarget(manifest.name, {
        targetsRoot: opts.targetsRoot,
        ...(keep ? { keepData: true, truncateLogs: true } : {}),
        ...(onProgress ? { onProgress } : {}),
        trace,
        ...(cores ? { cores } : {}),
        port: "free",
        forRun: true,
        ...(opts.nodes !== undefined ? { nodes: opts.nodes } : {}),
      });
      const storage = storageFingerprint(t);
      // one account of the target's processes for the cost, the liveness check and the experiments: it follows killed and restarted nodes
      // (a fault run's kill -9 ends the first process; the node started again is the target)
      const control = localTargetControl(t);
      return {
        url: t.url,
        pids: () => control.pids(),
        exited: () => control.exited(),
        ...(storage ? { storage } : {}),
        log: t.log,
        logFiles: () => nodeLogs(manifest.name),
        versions: [
          ...(t.postgres ? [`PostgreSQL ${t.postgres.settings.version}`] : []),
          ...(t.kafka ? [`Kafka ${t.kafka.version} (its own broker)`] : []),
          ...(t.redis ? [`Redis ${t.redis.version} (its own server)`] : []),
        ],
        // every server it declares is its own: none of the shared ones is reported as its
        ownServices: [...manifest.services],
        control,
      };
    },
    stop: async () => void (await stopTarget(manifest.name)),
    snapshot: async (dir) => {
      await stopTarget(manifest.name);
      return snapshotTarget(manifest.name, dir);
    },
    restore: async (dir) => {
      restoreTarget(manifest.name, dir);
      restored = true;
    },
  };
}
