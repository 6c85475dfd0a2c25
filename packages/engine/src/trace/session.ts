/**
 * Tracing for one run (DESIGN step 5): one Kafka topic per run; per cell a
 * window around the stable phase: the span lines the target writes in it are
 * produced to the topic, then the collector reads exactly that window back.
 *
 * By default a window ships after the phase: while the phase runs only the
 * log's offset is known, and nothing of the trace bus (file tailing, kafkajs,
 * the broker) works beside the measurement. `live: true` ships while the phase
 * runs (every 200 ms), as bench:overhead's "full-live" mode measures.
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

export interface WindowOptions {
  /** ship while the phase runs instead of after it; default false */
  live?: boolean;
}

export class TraceWindow {
  constructor(
    private readonly session: TraceSession,
    /** per log file: where the window starts in it */
    private readonly logs: Array<{ file: string; offset: number }>,
    /** started when the window opened (live), else when it finishes */
    private shippers: SpanShipper[] | undefined,
    /** the topic's end when the window opened: the window's spans start here */
    readonly from: number,
  ) {}

  /**
   * Ships what the window's logs hold (after a short drain for what the target
   * still buffers) and reads the window's spans back from Kafka.
   */
  async finish(keep?: (span: Span) => boolean, drainMs = 300): Promise<WindowResult> {
    if (!this.shippers) {
      if (drainMs > 0) await new Promise((r) => setTimeout(r, drainMs));
      this.shippers = await this.session.ship(this.logs);
      drainMs = 0;
    }
    const stats = await Promise.all(this.shippers.map((s) => s.stop(drainMs)));
    // one log per node: the counts add up (offset is the first log's)
    const shipped = stats.reduce((a, b) => ({
      ...a,
      lines: a.lines + b.lines,
      spans: a.spans + b.spans,
      messages: a.messages + b.messages,
      ignored: a.ignored + b.ignored,
    }));
    const { brokers, topic } = this.session;
    const to = await topicEnd(brokers, topic);
    const { spans } = await collectSpans({ brokers, topic, from: this.from, to, keep });
    return { spans, shipped };
  }

  /** Stops shipping without collecting (the phase failed); never throws. */
  async abort(): Promise<void> {
    await Promise.all((this.shippers ?? []).map((s) => s.stop(0).catch(() => undefined)));
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

  /** Opens a window: what the target writes to its log from now on is shipped (when it finishes, or live). */
  async window(opts: WindowOptions = {}): Promise<TraceWindow> {
    const logs = this.logFiles().map((file) => ({ file, offset: logOffset(file) }));
    const from = await topicEnd(this.brokers, this.topic);
    return new TraceWindow(this, logs, opts.live ? await this.ship(logs) : undefined, from);
  }

  /** One shipper per log, each from its offset. */
  ship(logs: ReadonlyArray<{ file: string; offset: number }>): Promise<SpanShipper[]> {
    return Promise.all(logs.map(({ file, offset }) => SpanShipper.start({ brokers: this.brokers, topic: this.topic, file, offset })));
  }

  /**
   * Deletes the run's topic: the breakdown in the result document is what is
   * kept; the spans themselves would only grow the broker's disk run by run.
   */
  async close(): Promise<void> {
    await deleteSpanTopic(this.brokers, this.topic);
  }
}
