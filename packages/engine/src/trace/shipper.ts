/**
 * The span shipper: tails a target's log file from an offset (the target's
 * stdout and stderr, SPEC 3), keeps the span lines and produces them to a
 * Kafka topic, keyed by trace id. Other lines are counted and dropped.
 */
import { parseSpanLine } from "@sfbench/core";
import { Partitioners, type Message, type Producer } from "kafkajs";
import { kafkaClient } from "./kafka.ts";
import { LogTail } from "./log-tail.ts";

export interface ShipperOptions {
  brokers: string[];
  topic: string;
  /** the log file the target writes */
  file: string;
  /** byte offset to start from (logOffset(file) before the window opens) */
  offset: number;
  /** how often the file is read; default 200 ms */
  pollMs?: number;
  /** produce requests stay below this many bytes of span lines; default 512 KiB (the broker takes 1 MiB) */
  maxBatchBytes?: number;
}

export interface ShipperStats {
  /** complete lines read from the file */
  lines: number;
  /** span lines produced */
  spans: number;
  /** Kafka messages produced (one per trace and poll) */
  messages: number;
  /** lines that were not spans (ignored, SPEC 3) */
  ignored: number;
  /** where the shipper stopped reading */
  offset: number;
}

export class SpanShipper {
  private readonly tail: LogTail;
  private readonly pollMs: number;
  private readonly maxBatchBytes: number;
  private readonly stats: ShipperStats;
  private stopping = false;
  private timer: NodeJS.Timeout | undefined;
  private wake: (() => void) | undefined;
  private loop: Promise<void> | undefined;
  private failure: Error | undefined;

  private constructor(
    private readonly opts: ShipperOptions,
    private readonly producer: Producer,
  ) {
    this.tail = new LogTail(opts.file, opts.offset);
    this.pollMs = opts.pollMs ?? 200;
    this.maxBatchBytes = opts.maxBatchBytes ?? 512 * 1024;
    this.stats = { lines: 0, spans: 0, messages: 0, ignored: 0, offset: opts.offset };
  }

  /** Connects a producer and starts polling the file. The topic must exist (createSpanTopic). */
  static async start(opts: ShipperOptions): Promise<SpanShipper> {
    const producer = kafkaClient(opts.brokers, "sfbench-span-shipper").producer({
      allowAutoTopicCreation: false,
      createPartitioner: Partitioners.DefaultPartitioner,
    });
    await producer.connect();
    const shipper = new SpanShipper(opts, producer);
    shipper.loop = shipper.run();
    return shipper;
  }

  /**
   * Waits `drainMs` for the target to flush what it still buffers, ships
   * everything up to the end of the file, and disconnects. Throws when
   * producing failed at any point (nothing is silently lost).
   */
  async stop(drainMs = 300): Promise<ShipperStats> {
    if (drainMs > 0 && !this.failure) await new Promise((r) => setTimeout(r, drainMs));
    this.stopping = true;
    if (this.timer) clearTimeout(this.timer);
    this.wake?.();
    await this.loop;
    try {
      if (!this.failure) {
        await this.shipAvailable();
        const last = this.tail.rest();
        if (last !== undefined) await this.send(this.spansOf([last]));
      }
    } catch (e) {
      this.failure ??= e as Error;
    } finally {
      this.tail.close();
      await this.producer.disconnect().catch(() => undefined);
    }
    this.stats.offset = this.tail.offset;
    if (this.failure) throw new Error(`shipping spans to ${this.opts.topic} failed: ${this.failure.message}`);
    return { ...this.stats };
  }

  private async run(): Promise<void> {
    while (!this.stopping) {
      try {
        await this.shipAvailable();
      } catch (e) {
        this.failure = e as Error;
        return;
      }
      if (this.stopping) return;
      await new Promise<void>((resolve) => {
        this.wake = resolve;
        this.timer = setTimeout(resolve, this.pollMs);
      });
    }
  }

  /** Reads and produces until the end of the file as it is now. */
  private async shipAvailable(): Promise<void> {
    for (;;) {
      const lines = this.tail.read();
      if (lines.length === 0) return;
      await this.send(this.spansOf(lines));
    }
  }

  /**
   * One message per trace among these lines: its span lines, newline-separated,
   * keyed by the trace id. (A message per span would cost kafkajs ~25 µs of
   * CPU each; a trace's spans mostly arrive in the same poll.)
   */
  private spansOf(lines: string[]): Message[] {
    const byTrace = new Map<string, string[]>();
    for (const line of lines) {
      this.stats.lines++;
      const span = parseSpanLine(line);
      if (!span) {
        this.stats.ignored++;
        continue;
      }
      this.stats.spans++;
      const group = byTrace.get(span.traceId);
      if (group) group.push(line);
      else byTrace.set(span.traceId, [line]);
    }
    // the topic's one partition, named: the partitioner need not hash the key
    return [...byTrace].map(([traceId, group]) => ({ key: traceId, value: group.join("\n"), partition: 0 }));
  }

  /** Produces in requests of at most maxBatchBytes, in order (acks from all in-sync replicas). */
  private async send(messages: Message[]): Promise<void> {
    let batch: Message[] = [];
    let bytes = 0;
    const flush = async () => {
      if (batch.length === 0) return;
      await this.producer.send({ topic: this.opts.topic, messages: batch });
      this.stats.messages += batch.length;
      batch = [];
      bytes = 0;
    };
    for (const m of messages) {
      const size = (m.value as string).length + 64;
      if (bytes + size > this.maxBatchBytes) await flush();
      batch.push(m);
      bytes += size;
    }
    await flush();
  }
}
