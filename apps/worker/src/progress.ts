/**
 * Stage and progress of a run, written to its row as they change (the run
 * page polls them): a new stage is written at once, progress within a stage
 * at most once a second. Writes are serialised.
 */
import type { Db } from "@sfbench/db";

export class RunProgress {
  private stage: string | undefined;
  private progress = 0;
  private lastWrite = 0;
  private chain: Promise<void> = Promise.resolve();

  constructor(
    private readonly db: Db,
    private readonly runId: string,
    private readonly minIntervalMs = 1000,
  ) {}

  /** the stage last set */
  get current(): string | undefined {
    return this.stage;
  }

  set(stage: string, progress?: number, force = false): Promise<void> {
    const changed = stage !== this.stage;
    const next = progress ?? this.progress;
    if (!changed && !force && (next === this.progress || Date.now() - this.lastWrite < this.minIntervalMs)) return this.chain;
    this.stage = stage;
    this.progress = Math.max(this.progress, Math.min(100, next));
    this.lastWrite = Date.now();
    const data = { stage, progress: this.progress };
    this.chain = this.chain.then(async () => {
      await this.db.run.updateMany({ where: { id: this.runId, status: { in: ["running"] } }, data });
    });
    return this.chain;
  }

  /** Waits for pending writes; a finished run keeps no current stage. */
  async finish(): Promise<void> {
    await this.chain.catch(() => {});
    await this.db.run.updateMany({ where: { id: this.runId, status: { in: ["completed", "failed", "interrupted"] } }, data: { stage: null, progress: 100 } });
  }
}
