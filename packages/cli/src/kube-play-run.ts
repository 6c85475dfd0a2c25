/**
 * `sfbench run --kube-play --target NAME`: the target as the cluster
 * program's rendered objects (infra/pulumi) played by `podman kube play` on
 * this machine, its image built offline, PostgreSQL from its local stand-in;
 * verified, then measured by the same engine and phases as a local or a
 * container run through the kube-play control. k6 runs on the host against
 * the target Service's published loopback port (not as k6-operator runners:
 * they need the operator). Everything played is removed in `finally`.
 */
import { randomUUID } from "node:crypto";
import { join } from "node:path";
import { manifestDigest, microOf, type ProgressEvent } from "@sfbench/core";
import { formatFailure, runConformance } from "@sfbench/conformance";
import { downRun, kubePlayTargetControl, playedStorage, playRun, targetPodResources, type MachineTypeName } from "@sfbench/infra-pulumi";
import { buildTargetImage } from "@sfbench/provider-container";
import { findTarget, freePort } from "@sfbench/provider-local";
import { paths, up } from "@sfbench/services";
import { aliveCheck, failedRunDocument, runBenchmark, writeResult } from "@sfbench/engine";
import { LiveLine } from "./live.ts";
import { note } from "./progress.ts";
import { reportRun, type RunOnceOptions, type RunOnceOutcome } from "./run-once.ts";

/** the machine type the played pods are sized for: the one whose pods fit a small machine (docs/cluster.md) */
const MACHINE_TYPE: MachineTypeName = "kind";

export async function runKubePlay(o: RunOnceOptions & { target: string }): Promise<RunOnceOutcome> {
  const { manifest } = findTarget(o.target);
  const target = { name: manifest.name, version: manifest.version, system: manifest.system, manifestDigest: manifestDigest(manifest) };
  const image = (await buildTargetImage(o.target, { onProgress: note })).ref;
  const runId = randomUUID();
  // a Service port each: the target's and one per service it declares
  const hostPorts = await Promise.all([manifest.port, ...manifest.services].map(() => freePort()));
  try {
    const played = await playRun({
      runId,
      // no tracing: the program would add an in-cluster Kafka for the spans, which has no local stand-in
      config: {
        nodes: 1,
        machineType: MACHINE_TYPE,
        target: { name: manifest.name, image, port: manifest.port, health: manifest.health, services: manifest.services, tracing: false },
      },
      hostPorts,
      onProgress: note,
    });
    const resources = targetPodResources(MACHINE_TYPE);
    note(`${manifest.name} is up at ${played.url}: the cluster program's pods under podman kube play (${resources.cpu} CPU, ${resources.memory})`);
    const control = await kubePlayTargetControl(played, manifest, { onProgress: note });
    const microDeclared = manifest.micro === true;
    note(`verifying ${played.url} (conformance suite)`);
    const report = await runConformance(played.url, { micro: microDeclared });
    if (report.failed > 0) {
      for (const r of report.checks.filter((c) => !c.passed)) process.stderr.write(formatFailure(r) + "\n");
      const message = `${report.failed} of ${report.checks.length} conformance checks failed: ${report.checks
        .filter((c) => !c.passed)
        .map((c) => c.id)
        .slice(0, 10)
        .join(", ")}`;
      const file = writeResult(
        o.resultsDir,
        failedRunDocument({
          target,
          profile: o.profile,
          startedAt: new Date(report.startedAt),
          stage: "verify",
          message,
          k6: o.k6,
          repoRoot: paths.root,
          rawDir: join(paths.home, "runs"),
        }),
      );
      note(`verify failed: no numbers for a non-conformant target; failed run written to ${file}`);
      return { code: 1, file };
    }
    note(`verify: ${report.passed} checks passed`);
    await up(["k6"]);
    const storage = await playedStorage(played);
    const live = new LiveLine();
    const outcome = await runBenchmark({
      target,
      baseUrl: played.url,
      k6: o.k6,
      profile: o.profile,
      cells: o.cells,
      experiment: o.experiment,
      control,
      ...(manifest.audit?.readsPerSecond ? { auditReadsPerSecond: manifest.audit.readsPerSecond } : {}),
      ...(microOf(o.chosen) ? { micro: { declared: microDeclared } } : {}),
      seed: o.seed,
      repoRoot: paths.root,
      resultsDir: o.resultsDir,
      rawRoot: join(paths.home, "runs"),
      targetPids: () => control.pids(),
      checkAlive: aliveCheck(() => control.exited()),
      systemVersion: [
        `${manifest.system} ${manifest.version}`,
        `podman kube play of the cluster program (machine type ${MACHINE_TYPE}: ${resources.cpu} CPU, ${resources.memory})`,
        ...(storage?.postgres?.version ? [`PostgreSQL ${storage.postgres.version} (its pod)`] : []),
      ].join("; "),
      ...(storage ? { storage } : {}),
      runId,
      onProgress: (e: ProgressEvent) => live.update(e),
    });
    live.done();
    return reportRun(outcome, o.json);
  } finally {
    await downRun(runId);
  }
}
