/**
 * Machine types a cluster run may declare, and the pod resources that follow
 * from them. A target pod gets requests = limits (Guaranteed QoS) of the
 * node's allocatable share: vCPUs minus what GKE reserves for the kubelet and
 * system pods, and memory minus the kubelet's and eviction reserves, so that
 * exactly one target pod fits per node and the numbers compare across runs.
 */
export interface MachineType {
  vcpus: number;
  memoryGiB: number;
  /** what the cloud charges per node-hour (USD, on-demand, for docs/cluster.md's cost estimate) */
  usdPerHour: number;
}

export const MACHINE_TYPES = {
  // the 2023 study: GKE, 5 and 10 nodes of n2-standard-4
  "n2-standard-4": { vcpus: 4, memoryGiB: 16, usdPerHour: 0.194 },
  "n2-standard-8": { vcpus: 8, memoryGiB: 32, usdPerHour: 0.388 },
  "e2-standard-4": { vcpus: 4, memoryGiB: 16, usdPerHour: 0.134 },
  // a local kind cluster: whatever the host has; pods get a fixed, small share
  kind: { vcpus: 2, memoryGiB: 4, usdPerHour: 0 },
} as const satisfies Record<string, MachineType>;
export type MachineTypeName = keyof typeof MACHINE_TYPES;

export interface PodResources {
  cpu: string;
  memory: string;
}

/** requests = limits for one target pod per node of this type */
export function targetPodResources(machine: MachineTypeName): PodResources {
  const m: MachineType = MACHINE_TYPES[machine];
  // GKE reserves ~6% of the first core, 1% of the next, plus system pods; leave 0.5 vCPU and 25% of memory free
  const millicores = Math.max(250, Math.round((m.vcpus - 0.5) * 1000));
  const memMiB = Math.max(512, Math.floor(m.memoryGiB * 1024 * 0.75));
  return { cpu: `${millicores}m`, memory: `${memMiB}Mi` };
}
