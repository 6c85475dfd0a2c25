export { ensurePodman, podman, podmanEnv, podmanRemove, podmanHome, PodmanError, PODMAN_PACKAGES, CONTAINER_ULIMITS } from "./podman.ts";
export { ensureBaseImages, imageExists, DEBIAN_BASE, NODE_BASE } from "./bases.ts";
export { GLIBC_BASE, GO_BASE, STATIC_BASE } from "./go-bases.ts";
export { JRE_BASE } from "./jre-bases.ts";
export { ensureLocalBases, LOCAL_BASES, type LocalBase } from "./local-bases.ts";
export { buildTargetImage, localImageRef, type BuiltImage } from "./image.ts";
export { ensureStoredImage, type StoredImage } from "./image-store.ts";
export { loadImageArchive, requireImage, unloadImageArchive } from "./archive.ts";
export { MachineClass, defaultMachineClass, parseMachineClass } from "./machine.ts";
export {
  ContainerTarget,
  containerName,
  readContainerState,
  runContainers,
  startContainerTarget,
  sweepContainerRuns,
  teardownRun,
  RUN_LABEL,
  userNamespaceBase,
  USERNS_SIZE,
  type ContainerNode,
  type ContainerStartOptions,
  type StartedContainerTarget,
} from "./container.ts";
export { createRunNetwork, removeRunNetwork, RunNetworkError, type RunNetwork } from "./run-network.ts";
export { containerTargetControl, type ContainerTargetControl } from "./control.ts";
export { cgroupCpuSeconds } from "./cgroup.ts";
export { imageTargetProvider } from "./provider.ts";
