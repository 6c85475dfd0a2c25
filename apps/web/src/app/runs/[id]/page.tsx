/** A run: status (live while queued or running), environment, results and charts, downloads. Failed runs show their error, never numbers. */
import type { ResultDocument } from "@sfbench/core";
import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { buildRunData, MicroCharts, microRunData, ResilienceCharts, resilienceRunData, RunCharts } from "../../../charts/index.ts";
import { systemColor } from "../../../charts/data/palette.ts";
import { RunProgress } from "../../../client/run-progress.tsx";
import { RunInterrupted, RunStatus } from "../../../components/run-status.tsx";
import { RunResults } from "../../../components/run-results.tsx";
import { manifestImage, RunNeedsCluster } from "../../../components/needs-cluster.tsx";
import { getDb } from "../../../server/db.ts";
import { getRun } from "../../../server/queries/run.ts";
import { fmtDate, fmtEnvironment, fmtPopulatedState, fmtSetup } from "../../../shared/format.ts";

export const dynamic = "force-dynamic";

type Props = { params: Promise<{ id: string }> };

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  return { title: `Run ${(await params).id.slice(0, 8)}` };
}

export default async function RunPage({ params }: Props) {
  const { id } = await params;
  if (!UUID.test(id)) notFound();
  const run = await getRun(await getDb(), id);
  if (!run) notFound();
  const active = run.status === "queued" || run.status === "running";
  return (
    <>
      <h1>
        Run <code>{run.id.slice(0, 8)}</code> of <Link href={`/systems/${encodeURIComponent(run.system.slug)}`}>{run.system.name}</Link>
      </h1>
      {active ? (
        <RunProgress id={run.id} initial={{ status: run.status, stage: run.stage, progress: run.progress, live: run.live }} />
      ) : (
        <p data-testid="run-status" data-status={run.status}>
          <RunStatus status={run.status} errorStage={run.errorStage} />
        </p>
      )}
      {run.status === "failed" ? (
        <div className="error-box" data-testid="run-error">
          <strong>Failed{run.errorStage ? ` at ${run.errorStage}` : ""}:</strong> {run.errorMessage ?? "no message"}
        </div>
      ) : null}
      {run.status === "interrupted" ? <RunInterrupted errorStage={run.errorStage} errorMessage={run.errorMessage} /> : null}
      {run.status === "needs_cluster" ? <RunNeedsCluster image={manifestImage(run.targetVersion.manifest)} errorMessage={run.errorMessage} /> : null}
      <dl className="meta">
        <dt>Target</dt>
        <dd>
          {run.system.slug} {run.targetVersion.version} <code className="muted">{run.targetVersion.manifestDigest.slice(0, 19)}…</code>
        </dd>
        <dt>Environment</dt>
        <dd>
          {fmtEnvironment(run.environmentKind, run.nodes)}
          {run.environment
            ? ` · ${run.environment.cpuModel}, ${run.environment.cores} cores, ${(run.environment.memoryBytes / 2 ** 30).toFixed(0)} GiB, ${run.environment.os}, k6 ${run.environment.k6Version}`
            : ""}
        </dd>
        {run.environment && fmtSetup(run.environment).length ? (
          <>
            <dt>Setup</dt>
            <dd data-testid="run-setup">{fmtSetup(run.environment).join(" · ")}</dd>
          </>
        ) : null}
        <dt>Profile</dt>
        <dd>{run.profile}</dd>
        {run.document?.populatedState ? (
          <>
            <dt>Started on</dt>
            <dd data-testid="run-populated-state">{fmtPopulatedState(run.document.populatedState)}</dd>
          </>
        ) : null}
        <dt>Created</dt>
        <dd>{fmtDate(run.createdAt)}</dd>
        <dt>Started</dt>
        <dd>{fmtDate(run.startedAt)}</dd>
        <dt>Finished</dt>
        <dd>{fmtDate(run.finishedAt)}</dd>
      </dl>
      {run.document ? (
        <>
          <h2>Downloads</h2>
          <p>
            <a href={`/runs/${run.id}/result.json`} download>
              result document (JSON)
            </a>{" "}
            ·{" "}
            <a href={`/runs/${run.id}/result.csv`} download>
              cells (CSV)
            </a>{" "}
            ·{" "}
            <a href={`/runs/${run.id}/series.csv`} download>
              per-second series (CSV)
            </a>
          </p>
        </>
      ) : null}
      {run.document && run.status === "completed" ? (
        <>
          <h2>Results</h2>
          <RunResults doc={run.document} />
          <div data-testid="run-charts">
            <RunCharts data={buildRunData(run.document)} />
          </div>
          <RunExperiments doc={run.document} />
        </>
      ) : null}
    </>
  );
}

/** The microbenchmarks and resilience results of a completed run (schema 2); a version-1 document has neither and shows nothing here. */
function RunExperiments({ doc }: { doc: ResultDocument }) {
  const micro = microRunData(doc);
  const resilience = resilienceRunData(doc);
  const system = { key: "s0", slug: doc.target.system, name: doc.target.name, color: systemColor(0) };
  return (
    <>
      {micro ? (
        <section data-testid="run-micro">
          <h2>Microbenchmarks</h2>
          <MicroCharts data={micro} />
        </section>
      ) : null}
      {resilience ? (
        <section data-testid="run-resilience">
          <h2>Resilience</h2>
          <ResilienceCharts data={resilience} system={system} />
        </section>
      ) : null}
    </>
  );
}
