/**
 * Stage, progress and the last progress event of a run, written to its row as
 * they change (the run page and `sfbench submit --wait` poll them): a new
 * stage is written at once, progress and live figures within a stage at most
 * once a second. Writes are serialised.
 */
import { stageOf, type PipelineStage, type ProgressEvent } from "@sfbench/core";
import type { Db } from "@sfbench/db";
import { Prisma } from "@sfbench/db";

export class RunProgress {
  private stage: PipelineStage | undefined;
  private progress = 0;
  private lastWrite = 0;
  private live: ProgressEvent | undefined;
  private chain: Promise<void> = Promise.resolve();

  constructor(
    private readonly db: Db,
    private readonly runId: string,
    private readonly minIntervalMs = 1000,
  ) {}

  /** the stage last set */
  get current(): PipelineStage | undefined {
    return this.stage;
  }

  /** A progress event of the benchmark: its stage (core stageOf) and the event itself, shown live. */
  event(e: ProgressEvent, progress?: number): Promise<void> {
    // notes are for logs; the live figures stay those of the load
    if (e.note) return this.chain;
    this.live = e;
    return this.set(stageOf(e), progress);
  }

  set(stage: PipelineStage, progress?: number, force = false): Promise<void> {
    const changed = stage !== this.stage;
    // a share that is not a number (a run of no cells divides by zero) leaves the bar where it is
    const next = progress !== undefined && Number.isFinite(progress) ? progress : this.progress;
    if (!changed && !force && Date.now() - this.lastWrite < this.minIntervalMs) return this.chain;
    // stages outside the benchmark (verify, store, teardown) have no live figures
    if (changed && stage !== "seed" && stage !== "load" && stage !== "audit") this.live = undefined;
    this.stage = stage;
    this.progress = Math.max(this.progress, Math.min(100, next));
    this.lastWrite = Date.now();
    const data = { stage, progress: this.progress, live: this.live ? (this.live as Prisma.InputJsonValue) : Prisma.DbNull };
    // progress is what the run page shows, never what the run depends on: a write that fails is said and the run goes on,
    // and the next write is not held back by it (nor does it leave a rejection nobody awaits, which would end the worker)
    this.chain = this.chain.then(() =>
      this.db.run.updateMany({ where: { id: this.runId, status: { in: ["running"] } }, data }).then(
        () => {},
        (e: Error) => void process.stderr.write(`${new Date().toISOString()} run ${this.runId}: progress not written: ${e.message}\n`),
      ),
    );
    return this.chain;
  }

  /** Waits for pending writes; a finished run keeps no current stage nor live figures. */
  async finish(): Promise<void> {
    await this.chain.catch(() => {});
    await this.db.run.updateMany({
      where: { id: this.runId, status: { in: ["completed", "failed", "interrupted"] } },
      data: { stage: null, progress: 100, live: Prisma.DbNull },
    });
  }
}
