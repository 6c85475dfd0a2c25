/**
 * The kubectl the cluster provider shells out to, with a stand-in `kubectl`
 * (a shell script that records its arguments and answers as kubectl would):
 * the command lines the provider runs against the operator's kubeconfig, and
 * how it reads what they print. A real API server is not available here.
 */
import { chmodSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { kubectlApi, parseCgroupCpu, parsePodList } from "../src/cluster/cluster-api.ts";
import { tempDir } from "./cluster-fakes.ts";

const PODS = {
  items: [
    {
      metadata: { name: "target-7d9c-abcde" },
      status: { phase: "Running", containerStatuses: [{ ready: true, restartCount: 0 }] },
    },
    {
      metadata: { name: "target-7d9c-fghij", deletionTimestamp: "2026-11-26T10:00:00Z" },
      status: { phase: "Running", containerStatuses: [{ ready: false, restartCount: 2, lastState: { terminated: { reason: "OOMKilled" } } }] },
    },
    { metadata: { name: "target-7d9c-klmno" }, status: { phase: "Pending" } },
  ],
};

/** a kubectl that appends its arguments to calls.log and answers from the verb */
function fakeKubectl(): { bin: string; calls: () => string[] } {
  const dir = tempDir("sfbench-kubectl-");
  const log = join(dir, "calls.log");
  writeFileSync(join(dir, "pods.json"), JSON.stringify(PODS));
  const bin = join(dir, "kubectl");
  writeFileSync(
    bin,
    `#!/bin/sh
echo "$*" >> ${log}
case "$*" in
  *" get pods "*"-o json"*) cat ${join(dir, "pods.json")} ;;
  *" exec "*) echo "usage_usec 12500000"; echo "user_usec 9000000" ;;
  *" delete pod "*) echo "pod deleted" ;;
  *) echo "unexpected: $*" >&2; exit 1 ;;
esac
`,
  );
  chmodSync(bin, 0o755);
  return { bin, calls: () => readFileSync(log, "utf8").trim().split("\n") };
}

describe("the cluster provider's kubectl", () => {
  it("lists a selector's pods, deletes a pod with grace 0 and --force for SIGKILL, and reads a pod's cgroup, all with the operator's kubeconfig and context", async () => {
    const k = fakeKubectl();
    const api = kubectlApi({ kubectl: k.bin, kubeconfigPath: "/etc/sfbench/kubeconfig", context: "kind-sfbench" });
    const pods = await api.pods("sfbench-run", "app.kubernetes.io/component=target");
    expect(pods).toEqual([
      { name: "target-7d9c-abcde", phase: "Running", ready: true, restarts: 0, deleting: false },
      { name: "target-7d9c-fghij", phase: "Running", ready: false, restarts: 2, deleting: true, lastTermination: "OOMKilled" },
      { name: "target-7d9c-klmno", phase: "Pending", ready: false, restarts: 0, deleting: false },
    ]);
    await api.deletePod("sfbench-run", "target-7d9c-abcde", 0);
    await api.deletePod("sfbench-run", "target-7d9c-abcde", 30);
    expect(await api.cpuSeconds("sfbench-run", "target-7d9c-abcde")).toBe(12.5);
    const prefix = "--kubeconfig /etc/sfbench/kubeconfig --context kind-sfbench";
    expect(k.calls()).toEqual([
      `${prefix} get pods -n sfbench-run -l app.kubernetes.io/component=target -o json`,
      `${prefix} delete pod target-7d9c-abcde -n sfbench-run --grace-period=0 --force --wait=false`,
      `${prefix} delete pod target-7d9c-abcde -n sfbench-run --grace-period=30 --wait=false`,
      `${prefix} exec -n sfbench-run target-7d9c-abcde -- sh -c cat /sys/fs/cgroup/cpu.stat 2>/dev/null || cat /sys/fs/cgroup/cpuacct/cpuacct.usage`,
    ]);
  });

  it("says which kubectl call failed and what it printed", async () => {
    const k = fakeKubectl();
    const api = kubectlApi({ kubectl: k.bin, kubeconfigPath: "/k" });
    await expect(api.testRunStage("ns", "seed")).rejects.toThrow(/kubectl get testruns\.k6\.io seed -n ns .*: unexpected: --kubeconfig \/k get testruns/);
  });

  it("reads cgroup v2's cpu.stat and v1's cpuacct.usage, and refuses anything else", () => {
    expect(parseCgroupCpu("usage_usec 2500000\nuser_usec 1\n", "p")).toBe(2.5);
    expect(parseCgroupCpu("3000000000\n", "p")).toBe(3);
    expect(() => parseCgroupCpu("sh: cat: not found\n", "target-1")).toThrow(/target-1: its cgroup gave no CPU time/);
    expect(parsePodList('{"items":[]}')).toEqual([]);
  });
});
