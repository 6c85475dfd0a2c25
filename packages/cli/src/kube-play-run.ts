/**
 * `sfbench run --kube-play --target NAME`: the target as the cluster
 * program's rendered objects (infra/pulumi) played by `podman kube play` on
 * this machine (provider-kubernetes' kubePlayProvider), its image built
 * offline, PostgreSQL from its local stand-in; verified, then measured by the
 * same engine and phases as a local or a container run through the
 * provider's control. k6 runs as the runner pods the program's TestRun
 * renders, on the run's network against the target Service's in-cluster
 * name, as the k6-operator would run them. Everything played is removed in
 * `finally`.
 */
import { randomUUID } from "node:crypto";
import { join } from "node:path";
import { manifestDigest, microOf, type ProgressEvent } from "@sfbench/core";
import { formatFailure, runConformance } from "@sfbench/conformance";
import { targetPodResources, type MachineTypeName } from "@sfbench/infra-pulumi";
import { kubePlayProvider } from "@sfbench/provider-kubernetes";
import { findTarget } from "@sfbench/provider-local";
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
  const runId = randomUUID();
  const provider = kubePlayProvider({ runId, manifest, machineType: MACHINE_TYPE, onProgress: note });
  try {
    // no tracing: the played program has no Kafka for the spans (kubePlayProvider says why)
    const played = await provider.start({ trace: false, onProgress: note });
    const resources = targetPodResources(MACHINE_TYPE);
    note(`${manifest.name} is up at ${played.url}: the cluster program's pods under podman kube play (${resources.cpu} CPU, ${resources.memory})`);
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
    // the host's k6 makes each invocation's archive; the runner pods' image carries the same binary
    await up(["k6"]);
    const live = new LiveLine();
    const outcome = await runBenchmark({
      target,
      baseUrl: played.url,
      k6: o.k6,
      profile: o.profile,
      cells: o.cells,
      experiment: o.experiment,
      ...(played.control ? { control: played.control } : {}),
      ...(played.generator ? { generator: played.generator } : {}),
      ...(played.environment ? { place: played.environment } : {}),
      ...(manifest.audit?.readsPerSecond ? { auditReadsPerSecond: manifest.audit.readsPerSecond } : {}),
      ...(microOf(o.chosen) ? { micro: { declared: microDeclared } } : {}),
      seed: o.seed,
      repoRoot: paths.root,
      resultsDir: o.resultsDir,
      rawRoot: join(paths.home, "runs"),
      targetPids: () => played.pids(),
      checkAlive: aliveCheck(() => played.exited()),
      systemVersion: [`${manifest.system} ${manifest.version}`, ...played.versions].join("; "),
      ...(played.storage ? { storage: played.storage } : {}),
      runId,
      onProgress: (e: ProgressEvent) => live.update(e),
    });
    live.done();
    return reportRun(outcome, o.json);
  } finally {
    await provider.stop();
  }
}
