import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { MissingPrerequisiteError, up, type ServiceName } from "../src/index.ts";
import { aptInstall } from "../src/apt.ts";
import { ensureK6 } from "../src/k6.ts";
import { findKafkaTools } from "../src/kafka.ts";
import { ensureRedisServer } from "../src/redis.ts";

describe("missing prerequisites", () => {
  const empty = mkdtemp(path.join(os.tmpdir(), "sfbench-empty-"));
  afterAll(async () => rm(await empty, { recursive: true }));

  it("a user without redis-server is told how to install it", async () => {
    const attempt = ensureRedisServer({ pathEnv: await empty, isRoot: false });
    await expect(attempt).rejects.toBeInstanceOf(MissingPrerequisiteError);
    await expect(attempt).rejects.toThrow("sudo apt-get install -y redis-server");
  });

  it("a package anything needs is installed only when missing, and a user who may not install it is told the command and why", async () => {
    let asked = 0;
    await aptInstall(["fuse3"], { present: () => (asked++, true), why: "lossyfs mounts through fusermount3", isRoot: false });
    expect(asked).toBe(1);
    const attempt = aptInstall(["fuse3"], { present: () => false, why: "lossyfs mounts through fusermount3", isRoot: false });
    await expect(attempt).rejects.toBeInstanceOf(MissingPrerequisiteError);
    await expect(attempt).rejects.toThrow("lossyfs mounts through fusermount3, which is not installed: run `sudo apt-get install -y fuse3`");
  });

  it("a machine without java and mvn is told to install both", async () => {
    expect(() => findKafkaTools({ pathEnv: "", needMaven: true })).toThrow(MissingPrerequisiteError);
    expect(() => findKafkaTools({ pathEnv: "", needMaven: true })).toThrow(/java .*and mvn/);
  });

  it("mvn is not asked for once the Kafka jars are there", () => {
    expect(findKafkaTools({ pathEnv: process.env.PATH ?? "", needMaven: false }).mvn).toBeUndefined();
  });

  it("a machine without k6 and Go is told to install Go or k6", async () => {
    const dir = await empty;
    // nor a k6 kept in the machine's store by an earlier clone
    const attempt = ensureK6({ pathEnv: dir, gobin: dir, cacheDir: dir }, () => undefined);
    await expect(attempt).rejects.toBeInstanceOf(MissingPrerequisiteError);
    await expect(attempt).rejects.toThrow("install Go 1.22+ or put k6 v1.8.1 on PATH");
  });
});

describe("service names", () => {
  it("an unknown service name is rejected with the allowed ones", async () => {
    await expect(up(["mysql" as ServiceName])).rejects.toThrow('unknown service "mysql": use postgres, redis, kafka, k6');
  });
});
