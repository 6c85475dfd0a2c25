import net from "node:net";
import { beforeAll, describe, expect, it } from "vitest";
import { redisUrl, status, up } from "../src/index.ts";

function send(url: string, command: string): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: hostname, port: Number(port) }, () => socket.write(`${command}\r\n`));
    socket.once("data", (reply) => {
      socket.end();
      resolve(reply.toString());
    });
    socket.once("error", reject);
  });
}

describe("redis", () => {
  beforeAll(async () => {
    await up(["redis"]);
  });

  it("answers PING on its URL", async () => {
    expect(await send(redisUrl(), "PING")).toBe("+PONG\r\n");
  });

  it("status reports it running on 127.0.0.1", async () => {
    const [s] = await status(["redis"]);
    expect(s).toMatchObject({ name: "redis", running: true, url: redisUrl() });
    expect(redisUrl()).toMatch(/^redis:\/\/127\.0\.0\.1:\d+$/);
  });
});
