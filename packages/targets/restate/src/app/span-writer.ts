/** Span lines (SPEC 3) on a stream, and the clock they use; shared by the handlers and the gateway. */
import type { Span } from "@sfbench/core";

/** Where span lines go: process.stdout in the endpoint process. */
export interface LineSink {
  write(chunk: string): unknown;
}

/** Span lines in one chunk per event-loop turn (or every 64 KiB). */
export class SpanWriter {
  private buffer = "";
  private scheduled = false;

  constructor(private readonly sink: LineSink) {}

  write(span: Span): void {
    this.buffer += JSON.stringify(span) + "\n";
    if (this.buffer.length >= 65_536) this.flush();
    else if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => this.flush());
    }
  }

  flush(): void {
    this.scheduled = false;
    if (!this.buffer) return;
    const chunk = this.buffer;
    this.buffer = "";
    this.sink.write(chunk);
  }
}
