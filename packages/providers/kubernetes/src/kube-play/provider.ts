/**
 * The cluster program of one run played on this machine, as the experiment
 * engine takes any target (core's TargetProvider): the program rendered and
 * played by podman kube play (play.ts), the target pods killed and restarted
 * through podman (control.ts), and k6 as the runner pods the program's
 * TestRun renders (generator.ts). Stopped with everything the run played;
 * stop is idempotent and may come while the run is still starting. Such a
 * stop never removes pods while the play still creates them: removing a
 * pod while kube play was starting its containers hung podman 4.3 in CI,
 * and every podman call after waited on the hung ones' locks. The stop
 * tells the play, which ends at its next step and tears down what it made,
 * and only then removes what is left.
 */
import type { RunningTarget, TargetManifest, TargetProvider } from "@sfbench/core";
import { targetPodResources, type MachineTypeName } from "@sfbench/infra-pulumi/machine";
import { buildTargetImage } from "@sfbench/provider-container";
import { freePort } from "@sfbench/provider-local";
import { TargetError } from "@sfbench/catalogue";
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
  /** aborted by stop, with the error a start still under way ends with */
  const stopping = new AbortController();
  /** the start from its play on, its own teardown included: a stop waits for it */
  let playing: Promise<unknown> | undefined;
  const checkStopped = () => stopping.signal.throwIfAborted();

  return {
    describe: `${opts.image ? `image ${opts.image}` : `bundled ${manifest.name}`} as the cluster program under podman kube play (machine type ${machineType})`,
    async start({ trace, onProgress = opts.onProgress }): Promise<RunningTarget> {
      // a stop during the image build has nothing played to wait for: the start ends at the check after it
      const image = opts.image ?? (await buildTargetImage(manifest.name, { ...(onProgress ? { onProgress } : {}) })).ref;
      checkStopped();
      const play = async (): Promise<RunningTarget> => {
        // a Service port each: the target's, per pod, and one per service it declares
        const hostPorts = await freePorts(nodes + manifest.services.length);
        const config: PlayOptions["config"] = {
          nodes,
          machineType,
          // no tracing: the program would add an in-cluster Kafka for the spans, which has no local stand-in, and nothing ships spans out of a pod
          target: { name: manifest.name, image, port: manifest.port, health: manifest.health, services: manifest.services, tracing: false },
        };
        if (trace) onProgress?.("no latency breakdown: a run played by podman kube play is not traced");
        const played = await playRun({ runId, config, hostPorts, signal: stopping.signal, ...(onProgress ? { onProgress } : {}) });
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
      };
      const started = play().catch(async (e: unknown) => {
        await downRun(runId);
        throw e;
      });
      playing = started.catch(() => undefined);
      return started;
    },
    async stop() {
      stopping.abort(new TargetError(`run ${runId} was stopped while it was starting`));
      await playing;
      await downRun(runId);
    },
  };
}
