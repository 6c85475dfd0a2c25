/** How a run's end reads: an interrupted run says so, with its stage and reason, and is not shown as failed. */
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { RunInterrupted, RunStatus } from "../src/components/run-status.tsx";

describe("run status", () => {
  it("shows an interrupted run as interrupted during its stage, not as failed", () => {
    const html = renderToStaticMarkup(<RunStatus status="interrupted" errorStage="load" />);
    expect(html).toBe('<span class="status status-interrupted">interrupted during load</span>');
    expect(html).not.toContain("failed");
  });

  it("still shows a failed run as failed at its stage", () => {
    expect(renderToStaticMarkup(<RunStatus status="failed" errorStage="verify" />)).toBe('<span class="status status-failed">failed at verify</span>');
  });

  it("explains an interrupted run: the reason, no numbers, not on the leaderboard, not the target's failure", () => {
    const html = renderToStaticMarkup(<RunInterrupted errorStage="seed" errorMessage="interrupted during seed: the worker was stopped (SIGTERM)" />);
    expect(html).toContain('data-testid="run-interrupted"');
    expect(html).toContain("Interrupted during seed:</strong> interrupted during seed: the worker was stopped (SIGTERM)");
    expect(html).toContain("not a failure of the target");
    expect(html).toContain("not on the");
  });
});
