/** A run's status as text: completed / failed (with the stage) / queued / running at a stage. */
export function RunStatus({ status, stage, progress, errorStage }: { status: string; stage?: string | null; progress?: number; errorStage?: string | null }) {
  return (
    <span className={`status status-${status}`}>
      {status}
      {status === "failed" && errorStage ? ` at ${errorStage}` : ""}
      {status === "running" && stage ? ` (${stage}${progress !== undefined ? `, ${progress}%` : ""})` : ""}
    </span>
  );
}
