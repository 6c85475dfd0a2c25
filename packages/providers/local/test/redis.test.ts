/**
 * A target that declares redis gets a Redis of its own, as it gets its own
 * PostgreSQL and Kafka: the shared Redis is the worker's queue, and a target
 * given it (with its password) could read and rewrite the queue. Its own asks
 * for a password made for it, is durable when the manifest is, counts in the
 * target's cost, dies with a crash of the whole target and comes back with
 * its data, and stops with the target.
 */
import { readFileSync } from "node:fs";
import { connect } from "node:net";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { answersPing, ports, redisUrl } from "@sfbench/services";
import { localTargetControl } from "../src/control.ts";
import { isAlive, startTarget, stopTarget } from "../src/run.ts";
import { costPids, targetRedisDir } from "../src/storage.ts";
import { readState } from "../src/target-process.ts";

const fixtures = fileURLToPath(new URL("./fixtures", import.meta.url));

/** AUTH, then one command, to the Redis of `url`; resolves with the command's reply line(s). */
function ask(url: string, ...command: string[]): Promise<string> {
  const { port, password } = new URL(url);
  const bulk = (words: string[]) => `*${words.length}\r\n${words.map((w) => `$${Buffer.byteLength(w)}\r\n${w}\r\n`).join("")}`;
  return new Promise((resolve, reject) => {
    const socket = connect({ host: "127.0.0.1", port: Number(port) }, () => socket.write(bulk(["AUTH", decodeURIComponent(password)]) + bulk(command)));
    let reply = "";
    socket.on("data", (chunk) => {
      reply += chunk.toString();
      const lines = reply.split("\r\n").slice(1, -1);
      if (lines.length && (!lines[0]!.startsWith("$") || lines.length >= 2)) {
        socket.end();
        resolve(lines.join(" "));
      }
    });
    socket.setTimeout(5_000, () => socket.destroy(new Error(`Redis did not answer ${command[0]} within 5 s`)));
    socket.on("error", reject);
  });
}

afterEach(async () => {
  await stopTarget("redis-store");
});

describe("a target that declares redis", () => {
  it(
    "gets a Redis of its own with a password of its own, durable, counted in its cost, killed and restarted with it, stopped with it",
    { timeout: 120_000 },
    async () => {
      const t = await startTarget("redis-store", { targetsRoot: fixtures });
      const redis = t.redis!;
      expect(redis.dir).toBe(targetRedisDir("redis-store"));
      const answer = (await (await fetch(`${t.url}/health`)).json()) as { redis: string };
      expect(answer.redis).toBe(redis.url);
      const given = new URL(answer.redis);
      const shared = new URL(redisUrl());
      expect(Number(given.port)).not.toBe(ports.redis);
      expect(given.password).not.toBe(shared.password);
      const password = decodeURIComponent(given.password);
      expect(await answersPing({ host: "127.0.0.1", port: redis.port }, 2_000, password)).toBe(true);
      expect(await answersPing({ host: "127.0.0.1", port: redis.port }, 2_000, null)).toBe(false);
      // durable as the manifest says: every write in the append-only file, fsynced before the answer
      expect(readFileSync(`${redis.dir}/redis.conf`, "utf8")).toMatch(/^appendfsync always$/m);
      expect(costPids(t)).toEqual([t.pid, redis.pid]);
      const control = localTargetControl(t);
      expect(control.pids()).toEqual([t.pid, redis.pid]);

      // a crash of the whole target takes its Redis; a restart brings it back with what it acknowledged, on a new port the node is told of
      expect(await ask(redis.url, "SET", "cart:1", "checked-out")).toBe("+OK");
      await control.kill(0, "SIGKILL");
      expect(isAlive(redis.pid)).toBe(false);
      await control.restart(0);
      const again = readState("redis-store")!.redis!;
      expect(isAlive(again.pid)).toBe(true);
      expect(((await (await fetch(`${t.url}/health`)).json()) as { redis: string }).redis).toBe(again.url);
      expect(await ask(again.url, "GET", "cart:1")).toBe("$11 checked-out");

      expect(await stopTarget("redis-store")).toBe(true);
      await expect.poll(() => isAlive(again.pid), { timeout: 15_000 }).toBe(false);
    },
  );
});
