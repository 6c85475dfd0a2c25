/**
 * Application transactions as DBOS steps, exactly once.
 *
 * DBOS runs a step and then checkpoints its output in the system database:
 * two commits, so a crash between them makes the recovered workflow run the
 * step again. DBOS's answer is a "transaction" step from a datasource package,
 * which writes its own completion record inside the application transaction;
 * none is published for 5.3.0 (@dbos-inc/nodepg-datasource is not on npm at
 * that version), so txStep() does what that datasource does: the transaction
 * looks up (workflow id, step id) in step_outputs first and, when it commits
 * new work, records its output there in the same commit.
 */
import { DBOS } from "@dbos-inc/dbos-sdk";
import { isRetryable, transaction, type Db, type Tx } from "@sfbench/shop-pg";

/** Deadlocks and serialization failures are retried; they roll back, so a retry starts clean. */
const RETRY = { retriesAllowed: true, maxAttempts: 20, intervalSeconds: 0.005, backoffRate: 2, shouldRetry: isRetryable } as const;

/** The workflow and step this code runs in; txStep() is only called inside a step. */
function stepKey(): { workflowId: string; step: number } {
  const workflowId = DBOS.workflowID;
  const step = DBOS.stepID;
  if (workflowId === undefined || step === undefined) throw new Error("txStep: not inside a DBOS workflow step");
  return { workflowId, step };
}

/** Runs `work` in one transaction as the workflow's next step; its output must be JSON. */
export function txStep<T>(db: Db, name: string, work: (tx: Tx) => Promise<T>): Promise<T> {
  return DBOS.runStep(
    () => {
      const { workflowId, step } = stepKey();
      return transaction(db, async (tx) => {
        const done = await tx.query<{ output: T }>({
          name: "step-output-get",
          text: "SELECT output FROM step_outputs WHERE workflow_id = $1 AND step = $2",
          values: [workflowId, step],
        });
        if (done.rows[0]) return done.rows[0].output;
        const output = await work(tx);
        await tx.query({
          name: "step-output-put",
          text: "INSERT INTO step_outputs (workflow_id, step, output) VALUES ($1, $2, $3)",
          values: [workflowId, step, JSON.stringify(output ?? null)],
        });
        return output;
      });
    },
    { name, ...RETRY },
  );
}
