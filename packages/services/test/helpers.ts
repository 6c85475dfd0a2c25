import { execFile } from "node:child_process";
import net from "node:net";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import type { ServiceStatus } from "../src/index.ts";

/** A TCP port nobody listens on right now, with `span - 1` free ports after it. */
export async function freePort(span = 1): Promise<number> {
  for (;;) {
    const port = 20_000 + Math.floor(Math.random() * 30_000);
    const free = await Promise.all(Array.from({ length: span }, (_, i) => isFree(port + i)));
    if (free.every(Boolean)) return port;
  }
}

function isFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once("error", () => resolve(false));
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
  });
}

/** Whether a TCP connection to host:port is accepted. */
export function connects(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port, timeout: 1_000 });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.once("connect", () => done(true));
    socket.once("timeout", () => done(false));
    socket.once("error", () => done(false));
  });
}

const fixture = fileURLToPath(new URL("./fixtures/services.ts", import.meta.url));

/** Runs `up|down|status|borrow <names>` in a child process with the given environment overrides. */
export async function servicesIn(env: Record<string, string>, command: "up" | "down" | "status", names: string[]): Promise<ServiceStatus[] | null>;
export async function servicesIn(
  env: Record<string, string>,
  command: "borrow",
  names: string[],
): Promise<{ borrowed: ServiceStatus[]; after: ServiceStatus[] }>;
export async function servicesIn(env: Record<string, string>, command: string, names: string[]): Promise<unknown> {
  const { stdout } = await promisify(execFile)(process.execPath, ["--import", "tsx", fixture, command, names.join(",")], {
    env: { ...process.env, ...env },
    timeout: 300_000,
  });
  return JSON.parse(stdout) as unknown;
}
