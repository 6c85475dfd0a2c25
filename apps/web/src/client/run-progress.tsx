"use client";
/** Live progress of a queued or running run: polls runs.progress each second; re-renders the page when the status changes. */
import { useQuery } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useEffect } from "react";
import { useTRPC } from "./trpc.ts";

const ACTIVE = new Set(["queued", "running"]);

export function RunProgress({ id, initial }: { id: string; initial: { status: string; stage: string | null; progress: number } }) {
  const trpc = useTRPC();
  const router = useRouter();
  const query = useQuery({
    ...trpc.runs.progress.queryOptions({ id }),
    refetchInterval: (q) => (q.state.data && !ACTIVE.has(q.state.data.status) ? false : 1_000),
  });
  const now = query.data ?? initial;
  // a new status (started, completed, failed) re-renders the page around this widget: times, results, error
  useEffect(() => {
    if (now.status !== initial.status) router.refresh();
  }, [now.status, initial.status, router]);
  return (
    <div className="progress" data-testid="run-progress" data-status={now.status}>
      <p>
        <span className={`status status-${now.status}`}>{now.status}</span>
        {now.stage ? <> · stage <strong>{now.stage}</strong></> : null} · {now.progress}%
      </p>
      <progress max={100} value={now.progress} />
      {now.status === "queued" ? <p className="hint">Waiting for a worker. This page updates by itself.</p> : null}
    </div>
  );
}
