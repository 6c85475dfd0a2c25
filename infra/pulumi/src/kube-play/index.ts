export { toKubePlay, KubePlayOptions, type KubePlayDocument, type PlayedPod, type PublishedPort } from "./translate.ts";
export { ensureStandins, POSTGRES_STANDIN, STANDINS } from "./images.ts";
export { downRun, hostInSubnet, kubePlayHome, playRun, type PlayedRun, type PlayOptions } from "./play.ts";
export { kubePlayTargetControl, playedStorage, type KubePlayTargetControl } from "./control.ts";
