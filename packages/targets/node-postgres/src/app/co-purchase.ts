/**
 * "Frequently bought together" counts (SPEC 2.1 step 6), written off the
 * latency path.
 *
 * record() only adds to an in-memory map; one background loop at a time
 * writes what has accumulated with a single INSERT ... ON CONFLICT DO UPDATE
 * per batch, in key order. Under load many checkouts share one statement, and
 * hot pairs are not fought over row by row. close() waits until everything
 * recorded is written.
 */
import { isRetryable, type Db } from "@sfbench/shop-pg";

const SEP = "\u0000";
/** Rows per statement. */
const MAX_BATCH = 5000;
/** Attempts per batch once the writer is closing (before that it retries forever). */
const ATTEMPTS_WHEN_CLOSING = 5;

export class CoPurchaseWriter {
  /** "p\0q" -> increment not yet written */
  private pending = new Map<string, number>();
  private loop: Promise<void> | undefined;
  private closing = false;

  constructor(
    private readonly db: Db,
    private readonly onError: (err: Error, rows: number) => void,
  ) {}

  /** Counts one completed order that contained these (distinct) products. */
  record(productIds: readonly string[]): void {
    if (productIds.length < 2) return;
    for (const p of productIds) for (const q of productIds) if (p !== q) this.add(p + SEP + q, 1);
    this.startLoop();
  }

  /** Pairs recorded but not written yet. */
  get backlog(): number {
    return this.pending.size;
  }

  /** Resolves once everything recorded so far is written (or given up after retries while closing). */
  async flush(): Promise<void> {
    while (this.loop) await this.loop;
  }

  async close(): Promise<void> {
    this.closing = true;
    await this.flush();
  }

  /** Starts the background loop unless it is running; setImmediate lets the response go out first. */
  private startLoop(): void {
    this.loop ??= new Promise<void>((resolve) => setImmediate(resolve))
      .then(() => this.drain())
      .catch((err: Error) => this.onError(err, 0))
      .finally(() => {
        this.loop = undefined;
        // something recorded between the end of drain() and now
        if (this.pending.size > 0) this.startLoop();
      });
  }

  private add(key: string, n: number): void {
    this.pending.set(key, (this.pending.get(key) ?? 0) + n);
  }

  private async drain(): Promise<void> {
    let failures = 0;
    while (this.pending.size > 0) {
      const batch = this.take();
      try {
        await this.write(batch);
        failures = 0;
      } catch (err) {
        failures++;
        if (this.closing && failures >= ATTEMPTS_WHEN_CLOSING) {
          this.onError(err as Error, batch.length);
          // giving up: drop the batch (the process is going away)
          continue;
        }
        for (const [key, n] of batch) this.add(key, n);
        if (!isRetryable(err)) this.onError(err as Error, batch.length);
        await new Promise((resolve) => setTimeout(resolve, Math.min(50 * 2 ** failures, 5000)));
      }
    }
  }

  private take(): [string, number][] {
    const batch: [string, number][] = [];
    for (const entry of this.pending) {
      batch.push(entry);
      this.pending.delete(entry[0]);
      if (batch.length >= MAX_BATCH) break;
    }
    return batch;
  }

  private async write(batch: readonly [string, number][]): Promise<void> {
    const ps: string[] = [];
    const qs: string[] = [];
    const ns: number[] = [];
    for (const [key, n] of batch) {
      const at = key.indexOf(SEP);
      ps.push(key.slice(0, at));
      qs.push(key.slice(at + 1));
      ns.push(n);
    }
    // ORDER BY: rows are locked in key order, so writers in other processes cannot deadlock with us.
    await this.db.query({
      name: "co-purchase-add",
      text: `INSERT INTO co_purchase (p, q, count)
             SELECT p, q, n FROM unnest($1::text[], $2::text[], $3::bigint[]) AS b (p, q, n) ORDER BY p COLLATE "C", q COLLATE "C"
             ON CONFLICT (p, q) DO UPDATE SET count = co_purchase.count + excluded.count`,
      values: [ps, qs, ns],
    });
  }
}
