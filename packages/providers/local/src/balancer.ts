/**
 * sfbench's load balancer for a multi-node target with routing "balancer":
 * round-robin over the nodes' HTTP ports, like a cloud load balancer in
 * front of a stateless tier. A node that refuses the connection (nothing was
 * sent: it is dead or restarting) is skipped for `downMs` and the request goes
 * to the next node; a request that fails in flight (the node died while it
 * worked) is answered 502, because it may have had effects.
 *
 * Every request gets a connection of its own to its node (clients keep theirs
 * to the balancer): with pooled connections a request written on an idle
 * connection to a node that has just died fails exactly like one the node was
 * working on, so the balancer could neither retry it safely nor count it
 * honestly. A loopback connect costs tens of microseconds; Linux reuses
 * loopback TIME_WAIT ports (tcp_tw_reuse=2, its default). Runs as a process
 * of its own (balancer-main.ts) so that it outlives the command that started
 * the target; its backends are re-read on SIGHUP (addNode).
 */
import { readFileSync } from "node:fs";
import { Agent, createServer, request, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { z } from "zod";

export const BackendsFile = z.strictObject({ backends: z.array(z.url()).min(1) });
export type BackendsFile = z.infer<typeof BackendsFile>;

export function readBackends(file: string): string[] {
  const parsed = BackendsFile.safeParse(JSON.parse(readFileSync(file, "utf8")));
  if (!parsed.success)
    throw new Error(`${file}: backends: ${parsed.error.issues.map((i) => i.message).join("; ")} (allowed: {"backends": ["http://127.0.0.1:<port>", ...]})`);
  return parsed.data.backends;
}

export interface Balancer {
  port: number;
  backends(): string[];
  setBackends(urls: string[]): void;
  close(): Promise<void>;
}

export interface BalancerOptions {
  port: number;
  host?: string;
  backends: string[];
  /** how long a node that refused a connection is skipped */
  downMs?: number;
}

function badGateway(res: ServerResponse, message: string): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  res.writeHead(502, { "content-type": "application/json" }).end(JSON.stringify({ error: "bad-gateway", message }));
}

/** Hop-by-hop headers (RFC 9110 7.6.1) belong to the client's connection, not to the node's. */
const HOP_BY_HOP = new Set(["connection", "keep-alive", "proxy-connection", "transfer-encoding", "te", "trailer", "upgrade"]);

function forwardHeaders(req: IncomingMessage, length: number): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [k, v] of Object.entries(req.headers)) if (v !== undefined && !HOP_BY_HOP.has(k)) out[k] = v;
  out["content-length"] = String(length);
  return out;
}

export function startBalancer(opts: BalancerOptions): Promise<Balancer> {
  let backends = [...opts.backends];
  const downUntil = new Map<string, number>();
  const downMs = opts.downMs ?? 500;
  const agent = new Agent({ keepAlive: false, maxSockets: Infinity });
  let next = 0;

  /** Backends in round-robin order from the next one, live ones first. */
  const order = (): string[] => {
    const n = backends.length;
    const start = next++ % n;
    const all = Array.from({ length: n }, (_, i) => backends[(start + i) % n]!);
    const now = Date.now();
    return [...all.filter((b) => (downUntil.get(b) ?? 0) <= now), ...all.filter((b) => (downUntil.get(b) ?? 0) > now)];
  };

  const forward = (req: IncomingMessage, res: ServerResponse, body: Buffer, candidates: string[]): void => {
    const backend = candidates[0]!;
    const url = new URL(backend);
    const up = request(
      { host: url.hostname, port: url.port, method: req.method, path: req.url, headers: forwardHeaders(req, body.length), agent },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
        answer.on("error", () => res.destroy());
      },
    );
    up.on("error", (e: NodeJS.ErrnoException) => {
      if (e.code === "ECONNREFUSED") {
        downUntil.set(backend, Date.now() + downMs);
        if (candidates.length > 1) return forward(req, res, body, candidates.slice(1));
        return badGateway(res, `no node accepted the connection (last: ${backend}: ${e.message})`);
      }
      badGateway(res, `node ${backend} failed during the request: ${e.message}`);
    });
    res.on("close", () => {
      if (!res.writableFinished) up.destroy();
    });
    up.end(body);
  };

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => forward(req, res, Buffer.concat(chunks), order()));
    req.on("error", () => res.destroy());
  });
  server.keepAliveTimeout = 65_000;

  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port, opts.host ?? "127.0.0.1", () => {
      resolve({
        port: (server.address() as AddressInfo).port,
        backends: () => [...backends],
        setBackends: (urls) => {
          if (urls.length === 0) throw new Error("backends: at least one node is needed");
          backends = [...urls];
        },
        close: () =>
          new Promise<void>((done) => {
            agent.destroy();
            server.close(() => done());
            server.closeAllConnections();
          }),
      });
    });
  });
}
