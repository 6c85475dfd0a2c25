/** A run's status as text: completed / failed (with the stage) / interrupted (with the stage) / queued / running at a stage. */
export function RunStatus({ status, stage, progress, errorStage }: { status: string; stage?: string | null; progress?: number; errorStage?: string | null }) {
  return (
    <span className={`status status-${status}`}>
      {status}
      {status === "failed" && errorStage ? ` at ${errorStage}` : ""}
      {status === "interrupted" && errorStage ? ` during ${errorStage}` : ""}
      {status === "running" && stage ? ` (${stage}${progress !== undefined ? `, ${progress}%` : ""})` : ""}
    </span>
  );
}

/** Why an interrupted run has no numbers: it was stopped (worker stopped or lost), which says nothing about the target. */
export function RunInterrupted({ errorStage, errorMessage }: { errorStage?: string | null; errorMessage?: string | null }) {
  return (
    <div className="interrupted-box" data-testid="run-interrupted">
      <strong>Interrupted{errorStage ? ` during ${errorStage}` : ""}:</strong> {errorMessage ?? "no message"}
      <p className="hint">
        The run was stopped before it finished (its worker was stopped or lost); this is not a failure of the target. It has no numbers and is not on the
        leaderboard. Submit the target again for a new run.
      </p>
    </div>
  );
}
