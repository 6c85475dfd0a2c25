/**
 * The cluster program of one run played on this machine, as the experiment
 * engine takes any target (core's TargetProvider): the program rendered and
 * played by podman kube play (play.ts), the target pods killed and restarted
 * through podman (control.ts), and k6 as the runner pods the program's
 * TestRun renders (generator.ts). Stopped with everything the run played;
 * stop is idempotent and may come while the run is still starting.
 */
import type { RunningTarget, TargetManifest, TargetProvider } from "@sfbench/core";
import { targetPodResources, type MachineTypeName } from "@sfbench/infra-pulumi/machine";
import { buildTargetImage } from "@sfbench/provider-container";
import { freePort, TargetError } from "@sfbench/provider-local";
import { kubePlayTargetControl, playedStorage } from "./control.ts";
import { kubePlayGenerator } from "./generator.ts";
import { downRun, playRun, type PlayOptions } from "./play.ts";

export interface KubePlayProviderOptions {
  runId: string;
  manifest: TargetManifest;
  /** the target's image in the project's podman storage (default: the bundled target's, built as `sfbench image build` does) */
  image?: string;
  /** target pods (default 1) */
  nodes?: number;
  /** the machine type the pods are sized for (default kind: the one whose pods fit a small machine) */
  machineType?: MachineTypeName;
  /** k6 runner pods per load step (default 1; seed and populate always run on one) */
  parallelism?: number;
  onProgress?: (message: string) => void;
}

/** `count` distinct loopback ports free now */
async function freePorts(count: number): Promise<number[]> {
  const ports = new Set<number>();
  while (ports.size < count) ports.add(await freePort());
  return [...ports];
}

export function kubePlayProvider(opts: KubePlayProviderOptions): TargetProvider {
  const { runId, manifest } = opts;
  const machineType = opts.machineType ?? "kind";
  const nodes = opts.nodes ?? 1;
  let stopped = false;
  /** the play in flight: a stop waits for it, then removes what it made */
  let playing: Promise<unknown> | undefined;
  const checkStopped = () => {
    if (stopped) throw new TargetError(`run ${runId} was stopped while it was starting`);
  };

  return {
    describe: `${opts.image ? `image ${opts.image}` : `bundled ${manifest.name}`} as the cluster program under podman kube play (machine type ${machineType})`,
    async start({ trace, onProgress = opts.onProgress }): Promise<RunningTarget> {
      try {
        const image = opts.image ?? (await buildTargetImage(manifest.name, { ...(onProgress ? { onProgress } : {}) })).ref;
        checkStopped();
        // a Service port each: the target's, per pod, and one per service it declares
        const hostPorts = await freePorts(nodes + manifest.services.length);
        const config: PlayOptions["config"] = {
          nodes,
          machineType,
          // no tracing: the program would add an in-cluster Kafka for the spans, which has no local stand-in, and nothing ships spans out of a pod
          target: { name: manifest.name, image, port: manifest.port, health: manifest.health, services: manifest.services, tracing: false },
        };
        if (trace) onProgress?.("no latency breakdown: a run played by podman kube play is not traced");
        const play = playRun({ runId, config, hostPorts, ...(onProgress ? { onProgress } : {}) });
        playing = play.catch(() => undefined);
        const played = await play;
        checkStopped();
        const control = await kubePlayTargetControl(played, manifest, { ...(onProgress ? { onProgress } : {}) });
        const storage = await playedStorage(played);
        checkStopped();
        const resources = targetPodResources(machineType);
        return {
          url: played.url,
          pids: () => control.pids(),
          exited: () => control.exited(),
          ...(storage ? { storage } : {}),
          versions: [
            `podman kube play of the cluster program (machine type ${machineType}: ${resources.cpu} CPU, ${resources.memory})`,
            ...(storage?.postgres?.version ? [`PostgreSQL ${storage.postgres.version} (its pod)`] : []),
          ],
          control,
          generator: kubePlayGenerator(played, {
            config,
            ...(opts.parallelism ? { parallelism: opts.parallelism } : {}),
            ...(onProgress ? { onProgress } : {}),
          }),
          environment: { kind: "kubernetes", machineType },
        };
      } catch (e) {
        await downRun(runId);
        throw e;
      }
    },
    async stop() {
      stopped = true;
      // what is played now goes at once (a play waiting for its target then fails fast), then whatever the play still made
      await downRun(runId);
      if (playing) {
        await playing;
        await downRun(runId);
      }
    },
  };
}
