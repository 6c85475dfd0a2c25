/**
 * createGateway(): the HTTP gateway in front of the StateFun job, ready to
 * listen. It pings the job through Kafka until one ping comes back; until then
 * /health answers 503. main.ts only reads the environment and listens.
 */
import type { FastifyInstance } from "fastify";
import { KafkaBridge, type BridgeStats } from "./bridge.ts";
import { buildHttpApp, type LogLevel } from "./http.ts";
import { SpanWriter, type LineSink } from "./spans.ts";

export interface GatewayOptions {
  brokers: string[];
  ingressTopic: string;
  egressTopic: string;
  /** requests without an answer after this long are answered 504 no-answer */
  timeoutMs: number;
  trace?: boolean;
  traceSink?: LineSink;
  logLevel?: LogLevel;
}

export interface Gateway {
  app: FastifyInstance;
  /** resolves once the job answered a ping */
  ready: Promise<void>;
  stats(): BridgeStats;
  close(): Promise<void>;
}

const PING_EVERY_MS = 500;

export async function createGateway(options: GatewayOptions): Promise<Gateway> {
  let isReady = false;
  let closed = false;
  const bridge = new KafkaBridge({
    brokers: options.brokers,
    ingressTopic: options.ingressTopic,
    egressTopic: options.egressTopic,
    timeoutMs: options.timeoutMs,
    onError: (err) => app.log.error({ err }, "the egress consumer failed"),
  });
  const spans = options.trace ? new SpanWriter(options.traceSink ?? process.stdout) : undefined;
  const app = buildHttpApp({
    send: (request, extraMs) => bridge.request(request, { extraMs }),
    isReady: () => isReady,
    stats: () => bridge.stats(),
    spans,
    logLevel: options.logLevel ?? "warn",
  });
  await app.ready();
  await bridge.connect();

  // The job starts in seconds (a fresh one) or after restoring a checkpoint: ping until it answers.
  const ready = (async () => {
    const pings: Promise<unknown>[] = [];
    while (!closed) {
      const ping = bridge.request({ type: "query.ping" }, { internal: true, timeoutMs: 60_000 }).then(
        () => true,
        () => false,
      );
      pings.push(ping);
      const answered = await Promise.race([ping, new Promise((r) => setTimeout(() => r(false), PING_EVERY_MS))]);
      if (answered) {
        isReady = true;
        return;
      }
    }
    throw new Error("the gateway was closed before the job answered");
  })();
  ready.catch(() => {});

  return {
    app,
    ready,
    stats: () => bridge.stats(),
    close: async () => {
      closed = true;
      await app.close();
      spans?.flush();
      await bridge.close();
    },
  };
}
