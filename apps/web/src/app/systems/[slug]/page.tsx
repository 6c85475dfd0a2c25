/** A system: description, versions with their manifest and LOC, run history, ratings (and the forms its owner and raters use). */
import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { RatingForm } from "../../../client/rating-form.tsx";
import { VerifyEmailNotice } from "../../../client/verify-email-notice.tsx";
import { SystemEditForm } from "../../../client/system-edit-form.tsx";
import { ClusterOnly, clusterOnlyReason } from "../../../components/cluster-only.tsx";
import { RunStatus } from "../../../components/run-status.tsx";
import { SystemCampaignsSection } from "../../../components/system-campaigns.tsx";
import { SystemExperimentsSections } from "../../../components/system-experiments.tsx";
import { VersionLoc } from "../../../components/version-loc.tsx";
import { getDb } from "../../../server/db.ts";
import { getSystem, HISTORY_LIMIT } from "../../../server/queries/system.ts";
import { getSystemCampaigns } from "../../../server/queries/system-campaigns.ts";
import { getSystemExperiments } from "../../../server/queries/system-experiments.ts";
import { countingRule } from "../../../server/ratings/counted.ts";
import { getViewer } from "../../../server/viewer.ts";
import { fmtDate, fmtEnvironment } from "../../../shared/format.ts";
import { implementationClass } from "../../../shared/implementation.ts";
import { ImplementationBadge } from "../../../components/implementation-class.tsx";
import { safeHref } from "../../../shared/safe-url.ts";

export const dynamic = "force-dynamic";

type Props = { params: Promise<{ slug: string }> };

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  return { title: decodeURIComponent((await params).slug) };
}

export default async function SystemPage({ params }: Props) {
  const slug = decodeURIComponent((await params).slug);
  const viewer = await getViewer();
  const db = await getDb();
  const system = await getSystem(db, slug, viewer?.id);
  if (!system) notFound();
  const [experiments, campaigns] = await Promise.all([
    getSystemExperiments(db, system.id, system.versions[0]?.manifest ?? null),
    getSystemCampaigns(db, system.id),
  ]);
  const clusterOnly = clusterOnlyReason(system.runs);
  return (
    <>
      <h1 data-testid="system-name">{system.name}</h1>
      <p className="muted">
        <code>{system.slug}</code>
        {system.repository ? (
          <>
            {" "}
            ·{" "}
            {safeHref(system.repository) ? (
              <a href={safeHref(system.repository)} rel="noopener noreferrer nofollow">
                {system.repository}
              </a>
            ) : (
              system.repository
            )}
          </>
        ) : null}
        {system.bundled ? " · bundled with sfbench" : null}
        {" · "}
        <img src={`/badge/${encodeURIComponent(system.slug)}.svg`} alt={`${system.name} badge`} height={20} style={{ verticalAlign: "middle" }} />
      </p>
      {system.description ? <p data-testid="system-description">{system.description}</p> : <p className="muted">No description.</p>}
      {system.versions[0] ? (
        <p data-testid="system-class">
          Implementation (version {system.versions[0].version}):
          <ImplementationBadge cls={implementationClass(system.versions[0].manifest)} />
        </p>
      ) : null}
      {clusterOnly ? <ClusterOnly reason={clusterOnly} /> : null}

      <h2>Ratings</h2>
      <p data-testid="ratings">
        {system.ratings
          ? `Programming model ${system.ratings.programmingModel.toFixed(1)} / 5 · understandability ${system.ratings.understandability.toFixed(1)} / 5 · from ${system.ratings.count} rating${system.ratings.count === 1 ? "" : "s"}`
          : "Not rated yet."}
      </p>
      <p className="muted" data-testid="ratings-rule">
        {`${system.ratings?.count ?? 0} rating${system.ratings?.count === 1 ? "" : "s"} counted`}
        {system.ratingsPending > 0
          ? `; ${system.ratingsPending} more not counted because their authors have not verified their email addresses: ${countingRule()}.`
          : `: ${countingRule()}.`}
      </p>
      {viewer && !viewer.emailVerifiedAt ? <VerifyEmailNotice email={viewer.email} /> : null}
      {!viewer ? (
        <p className="muted">
          <Link href={`/signin?next=/systems/${encodeURIComponent(system.slug)}`}>Sign in</Link> to rate this system.
        </p>
      ) : system.owned ? (
        <p className="muted">You own this system, so you cannot rate it.</p>
      ) : (
        <RatingForm slug={system.slug} mine={system.myRating} />
      )}

      <SystemCampaignsSection data={campaigns} />

      <h2>Runs</h2>
      <table className="table" data-testid="run-history">
        <thead>
          <tr>
            <th>Run</th>
            <th>Version</th>
            <th>Status</th>
            <th>Environment</th>
            <th>Profile</th>
            <th>Created</th>
            <th>Finished</th>
          </tr>
        </thead>
        <tbody>
          {system.runs.map((r) => (
            <tr key={r.id}>
              <td>
                <a href={`/runs/${r.id}`}>
                  <code>{r.id.slice(0, 8)}</code>
                </a>
              </td>
              <td>{r.targetVersion.version}</td>
              <td>
                <RunStatus status={r.status} stage={r.stage} progress={r.progress} errorStage={r.errorStage} />
              </td>
              <td>{fmtEnvironment(r.environmentKind, r.nodes)}</td>
              <td>{r.profile}</td>
              <td>{fmtDate(r.createdAt)}</td>
              <td>{fmtDate(r.finishedAt)}</td>
            </tr>
          ))}
          {system.runs.length === 0 ? (
            <tr>
              <td colSpan={7} className="muted">
                No runs yet.
              </td>
            </tr>
          ) : null}
        </tbody>
      </table>
      {system.runCount > HISTORY_LIMIT ? (
        <p className="muted">
          The newest {HISTORY_LIMIT} of {system.runCount} runs.
        </p>
      ) : null}

      <SystemExperimentsSections data={experiments} />

      <h2>Versions</h2>
      {system.versions.map((v) => (
        <details key={v.id} open={v === system.versions[0]}>
          <summary>
            <strong>{v.version}</strong> <code className="muted">{v.manifestDigest.slice(0, 19)}…</code> · {fmtDate(v.createdAt)}
            {v.image ? (
              <>
                {" "}
                · <code>{v.image}</code>
              </>
            ) : null}
          </summary>
          <VersionLoc loc={v.loc} declaredLoc={v.declaredLoc} />
          {v.manifest ? (
            <pre data-testid="manifest">{JSON.stringify(v.manifest, null, 2)}</pre>
          ) : (
            <p className="muted">target.json not known (only its digest).</p>
          )}
        </details>
      ))}

      {system.owned ? (
        <>
          <h2>Edit</h2>
          <SystemEditForm slug={system.slug} repository={system.repository} />
        </>
      ) : null}
    </>
  );
}
