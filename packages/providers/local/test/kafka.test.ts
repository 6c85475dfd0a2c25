/**
 * A target that declares kafka gets a broker of its own, as it gets its own
 * PostgreSQL: its data path's CPU is in its cost, and the broker stops with
 * the target, so a run leaves no loaded broker behind for the next benchmark.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { kafkaBrokers } from "@sfbench/services";
import { localTargetControl } from "../src/control.ts";
import { isAlive, startTarget, stopTarget } from "../src/run.ts";
import { costPids, storageFingerprint, targetKafkaDir } from "../src/storage.ts";

const fixtures = fileURLToPath(new URL("./fixtures", import.meta.url));

afterEach(async () => {
  await stopTarget("kafka-bus");
});

describe("a target that declares kafka", () => {
  it("gets a broker of its own, counted in its cost, recorded as dedicated, and stopped with it", { timeout: 240_000 }, async () => {
    const t = await startTarget("kafka-bus", { targetsRoot: fixtures });
    expect(t.kafka).toBeDefined();
    const kafka = t.kafka!;
    const answer = (await (await fetch(`${t.url}/health`)).json()) as { brokers: string };
    expect(answer.brokers).toBe(kafka.brokers.join(","));
    expect(answer.brokers).not.toBe(kafkaBrokers().join(","));
    expect(kafka.dir).toBe(targetKafkaDir("kafka-bus"));
    expect(readFileSync(`/proc/${kafka.pid}/cmdline`, "utf8")).toContain("kafka.Kafka");
    expect(costPids(t)).toEqual([t.pid, kafka.pid]);
    // the experiments' account of the target's processes (`sfbench run`'s cost, the worker's through the provider) counts it too
    expect(localTargetControl(t).pids()).toEqual([t.pid, kafka.pid]);
    expect(storageFingerprint(t)).toEqual({ kafka: { instance: "dedicated", version: expect.stringMatching(/^\d+\.\d+/) } });

    const control = localTargetControl(t);
    expect(await stopTarget("kafka-bus")).toBe(true);
    // a sampler that still asks once the target was stopped (an interrupted run) is told nothing runs, not thrown at
    expect(control.pids()).toEqual([]);
    await expect.poll(() => isAlive(kafka.pid), { timeout: 30_000 }).toBe(false);
  });
});
