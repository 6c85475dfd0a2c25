/**
 * The span collector: reads a span topic's partition from an offset up to an
 * end offset (the producer's end: everything the shipper produced) and
 * returns the spans (each message holds the span lines of one trace). A throwaway consumer group without commits; the group is
 * deleted afterwards.
 */
import { randomUUID } from "node:crypto";
import { parseSpanLine, type Span } from "@sfbench/core";
import { kafkaClient, withAdmin } from "./kafka.ts";

export interface CollectOptions {
  brokers: string[];
  topic: string;
  /** first offset to read; default 0 (the beginning) */
  from?: number;
  /** the end: offsets below it are read (topicEnd() once the shipper has stopped) */
  to: number;
  /** keep only the spans this accepts (e.g. those of the measured requests), to bound memory */
  keep?: (span: Span) => boolean;
  /** give up after this long; default 60 s */
  timeoutMs?: number;
}

export interface Collected {
  spans: Span[];
  /** messages read */
  messages: number;
  /** lines of messages that were not span lines (none, when a shipper produced them) */
  invalid: number;
}

export async function collectSpans(opts: CollectOptions): Promise<Collected> {
  const from = opts.from ?? 0;
  const out: Collected = { spans: [], messages: 0, invalid: 0 };
  if (opts.to <= from) return out;
  const groupId = `sfbench-collector-${randomUUID()}`;
  const consumer = kafkaClient(opts.brokers, "sfbench-span-collector").consumer({
    groupId,
    maxWaitTimeInMs: 250,
    // one member, one partition: no need to wait for others to join
    rebalanceTimeout: 10_000,
  });
  const timeoutMs = opts.timeoutMs ?? 60_000;
  let timer: NodeJS.Timeout | undefined;
  try {
    await consumer.connect();
    await consumer.subscribe({ topic: opts.topic, fromBeginning: true });
    let finished = false;
    let resolveDone!: () => void;
    const done = new Promise<void>((resolve, reject) => {
      resolveDone = resolve;
      timer = setTimeout(
        () => reject(new Error(`collecting ${opts.topic} [${from}, ${opts.to}) timed out after ${timeoutMs / 1000} s with ${out.messages} messages read`)),
        timeoutMs,
      );
    });
    // resolves once the consumer has joined its group and fetches
    await consumer.run({
      autoCommit: false,
      eachBatch: async ({ batch }) => {
        if (finished) return;
        for (const message of batch.messages) {
          const offset = Number(message.offset);
          if (offset < from) continue; // fetched before the seek took effect
          if (offset >= opts.to) break;
          out.messages++;
          // a message holds span lines of one trace, newline-separated
          for (const line of message.value ? message.value.toString("utf8").split("\n") : [""]) {
            const span = parseSpanLine(line);
            if (!span) out.invalid++;
            else if (!opts.keep || opts.keep(span)) out.spans.push(span);
          }
        }
        const last = batch.messages.at(-1);
        if (last && Number(last.offset) >= opts.to - 1) {
          finished = true;
          resolveDone();
        }
      },
    });
    if (from > 0) consumer.seek({ topic: opts.topic, partition: 0, offset: String(from) });
    await done;
    return out;
  } finally {
    clearTimeout(timer);
    await consumer.disconnect().catch(() => undefined);
    await withAdmin(opts.brokers, (admin) => admin.deleteGroups([groupId])).catch(() => undefined);
  }
}
