/**
 * The gateway's kafkajs client. kafkajs 2.2.4 re-arms a 1 ms timer for ever
 * on every open connection, even with nothing queued
 * (https://github.com/tulios/kafkajs/issues/1556, fix proposed in pull
 * request 1667): a few percent of a core that would be billed to this target.
 * The same repair as packages/engine/src/trace/kafka.ts: a check is
 * scheduled only while requests wait. Left alone if kafkajs changes.
 */
import { createRequire } from "node:module";
import { Kafka, logLevel } from "kafkajs";

interface RequestQueueInternals {
  pending: unknown[];
  throttledUntil: number;
  throttleCheckTimeoutId: NodeJS.Timeout | null;
  checkPendingRequests(): void;
  scheduleCheckPendingRequests(): void;
}

let fixed = false;
function fixIdleTimerLoop(): void {
  if (fixed) return;
  fixed = true;
  try {
    const RequestQueue = createRequire(import.meta.url)("kafkajs/src/network/requestQueue/index.js") as { prototype: RequestQueueInternals };
    const proto = RequestQueue.prototype;
    if (typeof proto.scheduleCheckPendingRequests !== "function" || typeof proto.checkPendingRequests !== "function") return;
    proto.scheduleCheckPendingRequests = function (this: RequestQueueInternals) {
      if (this.pending.length === 0 || this.throttleCheckTimeoutId) return;
      const wait = this.throttledUntil - Date.now();
      this.throttleCheckTimeoutId = setTimeout(
        () => {
          this.throttleCheckTimeoutId = null;
          this.checkPendingRequests();
        },
        wait > 0 ? wait : 10,
      );
    };
  } catch {
    // another kafkajs layout: keep its own behaviour
  }
}

/** kafkajs logs to stdout, where span lines go: it logs nothing here, failures surface as rejected promises. */
export function kafkaClient(brokers: string[], clientId: string): Kafka {
  fixIdleTimerLoop();
  return new Kafka({ clientId, brokers, logLevel: logLevel.NOTHING, connectionTimeout: 3_000, requestTimeout: 30_000, retry: { retries: 5 } });
}
