/**
 * The Kafka side of tracing (SPEC 3: span lines travel through Kafka, one
 * topic per run): topic naming, creation, end offsets and deletion.
 */
import { createRequire } from "node:module";
import { Kafka, logLevel, type Admin } from "kafkajs";

interface RequestQueueInternals {
  pending: unknown[];
  throttledUntil: number;
  throttleCheckTimeoutId: NodeJS.Timeout | null;
  checkPendingRequests(): void;
  scheduleCheckPendingRequests(): void;
}

/**
 * kafkajs 2.2.4 re-arms a 1 ms timer for ever on every open connection, even
 * with nothing queued (https://github.com/tulios/kafkajs/issues/1556, fix
 * proposed in pull request 1667): about 5% of a core per client, spent in the
 * sfbench process while the stable phase is measured. Replaced by the fixed
 * version: a check is scheduled only while requests wait (pushing a request
 * and every answer check the queue anyway). Left alone if kafkajs changes.
 */
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

/** The topic of a run's spans. */
export const spanTopic = (runId: string) => `sfbench.spans.${runId}`;

/**
 * A kafkajs client that logs nothing: failures surface as rejected promises,
 * and the CLI's live progress line is not interleaved with client chatter.
 */
export function kafkaClient(brokers: string[], clientId = "sfbench-trace"): Kafka {
  fixIdleTimerLoop();
  return new Kafka({ clientId, brokers, logLevel: logLevel.NOTHING, connectionTimeout: 3_000, requestTimeout: 30_000, retry: { retries: 5 } });
}

export async function withAdmin<T>(brokers: string[], fn: (admin: Admin) => Promise<T>): Promise<T> {
  const admin = kafkaClient(brokers, "sfbench-trace-admin").admin();
  await admin.connect();
  try {
    return await fn(admin);
  } finally {
    await admin.disconnect().catch(() => undefined);
  }
}

/** Creates the topic with one partition (spans keep their order; one consumer reads them) unless it exists. */
export async function createSpanTopic(brokers: string[], topic: string): Promise<void> {
  await withAdmin(brokers, async (admin) => {
    const existing = await admin.listTopics();
    if (existing.includes(topic)) return;
    await admin.createTopics({ topics: [{ topic, numPartitions: 1, replicationFactor: 1 }], waitForLeaders: true });
  });
}

/** The offset the next message of partition 0 will get (the high watermark): what was produced so far ends before it. */
export async function topicEnd(brokers: string[], topic: string): Promise<number> {
  return withAdmin(brokers, async (admin) => {
    const offsets = await admin.fetchTopicOffsets(topic);
    return Number(offsets.find((o) => o.partition === 0)?.high ?? offsets[0]?.high ?? 0);
  });
}

/** Deletes the topic; a topic that does not exist is fine. */
export async function deleteSpanTopic(brokers: string[], topic: string): Promise<void> {
  await withAdmin(brokers, async (admin) => {
    if ((await admin.listTopics()).includes(topic)) await admin.deleteTopics({ topics: [topic], timeout: 10_000 });
  });
}
