import net from "node:net";
import { beforeAll, describe, expect, it } from "vitest";
import { redisUrl, status, up } from "../src/index.ts";

/** The replies to `commands` on one fresh connection to the URL's host and port, once `expected` lines came back. */
function send(url: string, commands: string[], expected = commands.length): Promise<string[]> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: hostname, port: Number(port) }, () => socket.write(commands.map((c) => `${c}\r\n`).join("")));
    let replies = "";
    socket.on("data", (chunk) => {
      replies += chunk.toString();
      const lines = replies.split("\r\n").slice(0, -1);
      if (lines.length < expected) return;
      socket.end();
      resolve(lines);
    });
    socket.once("error", reject);
  });
}

describe("redis", () => {
  beforeAll(async () => {
    await up(["redis"]);
  });

  it("answers PING on its URL with the URL's password, and nothing without it", async () => {
    const password = decodeURIComponent(new URL(redisUrl()).password);
    expect(await send(redisUrl(), [`AUTH ${password}`, "PING"])).toEqual(["+OK", "+PONG"]);
    expect(await send(redisUrl(), ["PING"])).toEqual(["-NOAUTH Authentication required."]);
  });

  it("status reports it running on 127.0.0.1", async () => {
    const [s] = await status(["redis"]);
    expect(s).toMatchObject({ name: "redis", running: true, url: redisUrl() });
    expect(redisUrl()).toMatch(/^redis:\/\/:[A-Za-z0-9_-]+@127\.0\.0\.1:\d+$/);
  });
});
