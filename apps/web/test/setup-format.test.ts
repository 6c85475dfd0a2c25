/** The run page's setup line: where generator and target ran, and what the target's storage promised. */
import { describe, expect, it } from "vitest";
import { fmtPopulatedState, fmtSetup } from "../src/shared/format.ts";

describe("a run's setup, next to its numbers", () => {
  it("names the CPU split and the target's own PostgreSQL settings", () => {
    expect(
      fmtSetup({
        kind: "local",
        cores: 2,
        cpuSplit: { generator: "0", target: "1" },
        storage: { postgres: { instance: "dedicated", fsync: "on", synchronous_commit: "on", full_page_writes: "on", version: "17.10" } },
      }),
    ).toEqual(["load generator on CPU 0, target on CPU 1", "PostgreSQL 17.10 (the target's own): fsync on, synchronous_commit on, full_page_writes on"]);
  });

  it("says whose Kafka broker carried a target's data path, and so whether its CPU is in the cost", () => {
    expect(fmtSetup({ kind: "kubernetes", cores: 8, storage: { kafka: { instance: "dedicated", version: "4.3.1" } } })).toEqual([
      "Kafka 4.3.1 (the target's own broker: its CPU is in the cost)",
    ]);
    expect(fmtSetup({ kind: "kubernetes", cores: 8, storage: { kafka: { instance: "shared" } } })).toEqual([
      "Kafka (a shared broker: its CPU is not in the cost)",
    ]);
  });

  it("says when a local run had no split, as runs of a worker after its first did before 2026-11-24", () => {
    expect(fmtSetup({ kind: "local", cores: 2 })).toEqual(["no CPU split: the load generator and the target shared the cores"]);
    expect(fmtSetup({ kind: "local", cores: 1 })).toEqual(["one core: the load generator and the target shared it"]);
  });

  it("says where the CPU cost came from: a container's cgroups or the target's process trees", () => {
    expect(fmtSetup({ kind: "local", cores: 2, cpuSplit: { generator: "0", target: "1" }, cost: { source: "cgroup" } })).toEqual([
      "load generator on CPU 0, target on CPU 1",
      "CPU cost from the containers' cgroups (and the target's own PostgreSQL's processes)",
    ]);
    expect(fmtSetup({ kind: "local", cores: 2, cpuSplit: { generator: "0", target: "1" }, cost: { source: "process-tree" } })[1]).toBe(
      "CPU cost from the target's process trees",
    );
  });

  it("says nothing of a split for a cluster run, whose runners have nodes of their own", () => {
    expect(fmtSetup({ kind: "kubernetes", cores: 8 })).toEqual([]);
  });

  it("says which populated state a campaign trial started on, and that it seeded nothing itself", () => {
    const state = { buildId: "0c1d2e3f-0000-4000-8000-000000000000", builtAt: "2026-12-03T11:51:00.123Z", products: 5000, buildS: 754.2, bytes: 96 * 2 ** 20 };
    expect(fmtPopulatedState({ ...state, populate: 20000 })).toBe(
      "a copy of the campaign's populated state 0c1d2e3f (5,000 products and 20,000 populate checkouts, 96 MiB), built once at 2026-12-03 11:51 UTC in 754 s; the trial seeded nothing itself",
    );
    expect(fmtPopulatedState(state)).toMatch(/^a copy of the campaign's populated state 0c1d2e3f \(5,000 products, 96 MiB\)/);
  });
});
