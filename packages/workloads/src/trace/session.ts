/**
 * Tracing for one run (DESIGN step 5): one Kafka topic per run; per cell a
 * window around the stable phase in which the shipper produces the span
 * lines the target writes, then the collector reads exactly that window back.
 */
import type { Span } from "@sfbench/core";
import { collectSpans } from "./collector.ts";
import { createSpanTopic, deleteSpanTopic, spanTopic, topicEnd } from "./kafka.ts";
import { logOffset } from "./log-tail.ts";
import { SpanShipper, type ShipperStats } from "./shipper.ts";

export interface TraceOptions {
  /** the file the target's stdout (span lines) goes to */
  logFile: string;
  /** every node's log, read when a window opens (a multi-node target writes spans to one log per node); default [logFile] */
  logFiles?: () => string[];
  brokers: string[];
}

export interface WindowResult {
  spans: Span[];
  shipped: ShipperStats;
}

export class TraceWindow {
  constructor(
    private readonly session: TraceSession,
    private readonly shippers: SpanShipper[],
    /** the topic's end when the window opened: the window's spans start here */
    readonly from: number,
  ) {}

  /** Stops shipping (after a short drain) and reads the window's spans back from Kafka. */
  async finish(keep?: (span: Span) => boolean, drainMs = 300): Promise<WindowResult> {
    const stats = await Promise.all(this.shippers.map((s) => s.stop(drainMs)));
    // one log per node: the counts add up (offset is the first log's)
    const shipped = stats.reduce((a, b) => ({ ...a, lines: a.lines + b.lines, spans: a.spans + b.spans, messages: a.messages + b.messages, ignored: a.ignored + b.ignored }));
    const { brokers, topic } = this.session;
    const to = await topicEnd(brokers, topic);
    const { spans } = await collectSpans({ brokers, topic, from: this.from, to, keep });
    return { spans, shipped };
  }

  /** Stops shipping without collecting (the phase failed); never throws. */
  async abort(): Promise<void> {
    await Promise.all(this.shippers.map((s) => s.stop(0).catch(() => undefined)));
  }
}

export class TraceSession {
  private constructor(
    readonly brokers: string[],
    readonly topic: string,
    readonly logFiles: () => string[],
  ) {}

  /** Creates the run's topic `sfbench.spans.<runId>`. */
  static async open(runId: string, opts: TraceOptions): Promise<TraceSession> {
    const topic = spanTopic(runId);
    await createSpanTopic(opts.brokers, topic);
    return new TraceSession(opts.brokers, topic, opts.logFiles ?? (() => [opts.logFile]));
  }

  /** Opens a window: what the target writes to its log from now on is shipped. */
  async window(): Promise<TraceWindow> {
    const files = this.logFiles();
    const offsets = files.map((f) => logOffset(f));
    const from = await topicEnd(this.brokers, this.topic);
    const shippers = await Promise.all(files.map((file, i) => SpanShipper.start({ brokers: this.brokers, topic: this.topic, file, offset: offsets[i]! })));
    return new TraceWindow(this, shippers, from);
  }

  /**
   * Deletes the run's topic: the breakdown in the result document is what is
   * kept; the spans themselves would only grow the broker's disk run by run.
   */
  async close(): Promise<void> {
    await deleteSpanTopic(this.brokers, this.topic);
  }
}
