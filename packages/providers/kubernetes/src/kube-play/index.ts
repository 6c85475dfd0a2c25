export {
  executionSegment,
  toKubePlay,
  KubePlayOptions,
  type KubePlayDocument,
  type PlayedPod,
  type PublishedPort,
  type RunnerPod,
  type TestRunSpec,
} from "./translate.ts";
export { ensureK6Standin, ensureStandins, K6_STANDIN, POSTGRES_STANDIN, STANDINS } from "./images.ts";
export { downRun, hostInSubnet, playRun, type PlayedRun, type PlayOptions } from "./play.ts";
export { kubePlayHome } from "./home.ts";
export { kubePlayTargetControl, playedStorage, type KubePlayTargetControl } from "./control.ts";
export { kubePlayGenerator, type KubePlayGeneratorOptions } from "./generator.ts";
export { kubePlayProvider, type KubePlayProviderOptions } from "./provider.ts";
