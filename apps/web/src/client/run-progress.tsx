"use client";
/**
 * Live progress of a queued or running run: polls runs.progress each second;
 * re-renders the page when the status changes. While the benchmark runs it
 * shows the run's last progress event (cell, phase, offered and achieved
 * rate, p99, errors), rendered by core's describeProgress like the CLI's line.
 */
import { describeProgress, phaseFraction, ProgressEvent } from "@sfbench/core/contract";
import { useQuery } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useEffect } from "react";
import { useTRPC } from "./trpc.ts";

const ACTIVE = new Set(["queued", "running"]);

interface Progress {
  status: string;
  stage: string | null;
  progress: number;
  live?: unknown;
  /** queued: how many runs the worker takes before this one */
  ahead?: number | null;
}

export function RunProgress({ id, initial }: { id: string; initial: Progress }) {
  const trpc = useTRPC();
  const router = useRouter();
  const query = useQuery({
    ...trpc.runs.progress.queryOptions({ id }),
    refetchInterval: (q) => (q.state.data && !ACTIVE.has(q.state.data.status) ? false : 1_000),
  });
  const now: Progress = query.data ?? initial;
  // a new status (started, completed, failed) re-renders the page around this widget: times, results, error
  useEffect(() => {
    if (now.status !== initial.status) router.refresh();
  }, [now.status, initial.status, router]);
  const live = now.status === "running" ? ProgressEvent.safeParse(now.live) : undefined;
  const event = live?.success ? live.data : undefined;
  const fraction = event ? phaseFraction(event) : undefined;
  return (
    <div className="progress" data-testid="run-progress" data-status={now.status}>
      <p>
        <span className={`status status-${now.status}`}>{now.status}</span>
        {now.stage ? (
          <>
            {" "}
            · stage <strong>{now.stage}</strong>
          </>
        ) : null}{" "}
        · {now.progress}%
      </p>
      <progress max={100} value={now.progress} />
      {event ? (
        <p className="live" data-testid="run-live">
          {describeProgress(event).join(" · ")}
          {fraction !== undefined ? (
            <>
              {" "}
              <progress className="phase" max={1} value={fraction} aria-label="this load step" />
            </>
          ) : null}
        </p>
      ) : null}
      {now.status === "queued" ? (
        <p className="hint" data-testid="run-ahead">
          {now.ahead
            ? `Waiting: the worker takes ${now.ahead} ${now.ahead === 1 ? "run" : "runs"} before this one (queued earlier, or running now).`
            : "Waiting for a worker."}{" "}
          This page updates by itself.
        </p>
      ) : null}
    </div>
  );
}
