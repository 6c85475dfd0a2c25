/**
 * The leaderboard table: sortable by any column through links (the sort is in the URL), best first by default.
 * Plain <a> links: a page of 100 rows must not make Next prefetch 300 pages.
 */
import { PAGE_SIZE, type FocusMetric, type Leaderboard, type LeaderboardRow } from "../server/queries/leaderboard.ts";
import { fmtDate, fmtEnvironment, fmtMs, fmtNumber, fmtPercent, fmtRate, fmtResolution, rateUnit } from "../shared/format.ts";
import { compareHref } from "../shared/compare-params.ts";
import { fmtCoverage, fmtFigure, fmtInterval, fmtRatio } from "../shared/format-figure.ts";
import { MIN_RANKED_TRIALS, provisional, REFERENCE_TARGET } from "../shared/trial-figures.ts";
import { machineParam } from "../server/queries/populations.ts";
import { defaultDir, type LeaderboardFilter, type RateKey, type SortKey } from "../shared/leaderboard-params.ts";
import { BoardChart } from "./board-chart.tsx";
import { ImplementationBadge } from "./implementation-class.tsx";
import { VerifiedBadge } from "./verified-badge.tsx";

function href(filter: LeaderboardFilter, patch: Partial<Record<keyof LeaderboardFilter, string | number | boolean | undefined>>): string {
  const merged: Record<string, string | number | boolean | undefined> = { ...filter, ...patch };
  const params = new URLSearchParams();
  const defaults: Record<string, string | number | boolean> = {
    view: "rates",
    workload: "all",
    distribution: "all",
    sort: "checkout.uniform",
    page: 1,
    tuned: false,
  };
  for (const [k, v] of Object.entries(merged)) if (v !== undefined && v !== "" && defaults[k] !== v) params.set(k, v === true ? "1" : String(v));
  const qs = params.toString();
  return qs ? `/?${qs}` : "/";
}

/** The board's population as the compare page's parameters: systems are compared where they were ranked. */
function populationParams(board: Leaderboard): { kind: string; profile: string; machine: string } {
  return { kind: board.population.kind, profile: board.population.profile, machine: machineParam(board.population.machineClass) };
}

function SortHeader({ board, sort, label, num = true, title }: { board: Leaderboard; sort: SortKey; label: string; num?: boolean; title?: string }) {
  const active = board.filter.sort === sort;
  const next = active ? (board.dir === "asc" ? "desc" : "asc") : defaultDir(sort);
  const arrow = active ? (board.dir === "asc" ? " ▲" : " ▼") : "";
  return (
    <th className={num ? "num" : undefined} title={title} aria-sort={active ? (board.dir === "asc" ? "ascending" : "descending") : undefined}>
      <a href={href(board.filter, { sort, dir: next === defaultDir(sort) ? undefined : next, page: undefined })}>
        {label}
        {arrow}
      </a>
    </th>
  );
}

function RateCell({ row, k }: { row: LeaderboardRow; k: RateKey }) {
  if (row.invalid[k])
    return (
      <td className="num">
        <span className="invalid" title={row.invalid[k]}>
          invalid
        </span>
      </td>
    );
  if (row.smoke[k])
    return (
      <td className="num">
        <a className="muted" href={`/runs/${row.runId}`} title={row.smoke[k]}>
          smoke test
        </a>
      </td>
    );
  if (!(k in row.rates)) return <td className="num muted">—</td>;
  const rate = row.rates[k];
  const resolution = row.resolutions[k];
  const figure = row.figures[k];
  const unit = rateUnit(k.split(".")[0]!);
  const spread =
    figure && figure.n > 1
      ? `; median of ${figure.n} trials (min ${fmtRate(figure.min)}, max ${fmtRate(figure.max)}), interval of the median ${fmtInterval(figure)}`
      : "; one run: provisional";
  return (
    <td
      className="num"
      data-figure={figure ? fmtFigure(figure) : undefined}
      title={`${k}: sustainable rate, ${unit} offered${spread}; the first unsustainable step was ${fmtResolution(resolution)} higher (knee resolution); profile ${row.profile}`}
    >
      {rate === null ? <span className="muted">none</span> : fmtRate(rate)}
      {figure ? (
        <>
          <br />
          <span className="muted figure">{figure.interval ? `${fmtInterval(figure)}, n=${figure.n}` : `n=${figure.n}`}</span>
          {!provisional(figure) ? null : (
            <span className="badge provisional" title={`${figure.n === 1 ? "one run" : `${figure.n} trials`}: ranked with ${MIN_RANKED_TRIALS} or more`}>
              provisional
            </span>
          )}
          {figure.ratio ? (
            <>
              <br />
              <span className="muted" data-ratio>
                {fmtRatio(figure.ratio)}
              </span>
            </>
          ) : null}
        </>
      ) : null}
      {resolution === undefined ? null : (
        <>
          <br />
          <span className="muted" data-resolution={resolution}>
            {fmtResolution(resolution)}
          </span>
        </>
      )}
    </td>
  );
}

/** A focus figure: the median across the counted trials, with its interval and n when there are several. */
function FocusCell({ row, metric, format }: { row: LeaderboardRow; metric: FocusMetric; format: (v: number | null | undefined) => string }) {
  const f = row.focusFigures[metric];
  const value = row.focus?.[metric];
  if (!f || f.n < 2) return <td className="num">{format(value)}</td>;
  return (
    <td className="num" data-focus={metric} title={`median of ${f.n} trials (min ${format(f.min)}, max ${format(f.max)})`}>
      {format(value)}
      <br />
      <span className="muted figure">
        {f.interval ? `[${format(f.interval.low)}, ${format(f.interval.high)}] (${fmtCoverage(f.interval)}), n=${f.n}` : `n=${f.n}`}
      </span>
    </td>
  );
}

/** The # column: sorted by a rate, the rank (tied rows share it) or "provisional"; sorted otherwise, the position. */
function RankCell({ row, position }: { row: LeaderboardRow; position: number }) {
  const s = row.standing;
  if (!s) return <td className="muted">{position}</td>;
  if (s.provisional)
    return (
      <td
        className="muted"
        data-rank="provisional"
        title={s.because ?? `fewer than ${MIN_RANKED_TRIALS} counted trials: shown, never ranked above a ranked median`}
      >
        –
      </td>
    );
  return (
    <td
      data-rank={s.rank ?? undefined}
      data-tied={s.tiedWith > 0 ? "" : undefined}
      title={s.tiedWith > 0 ? `tied: the interval of its median overlaps ${s.tiedWith === 1 ? "another system's" : `${s.tiedWith} other systems'`}` : undefined}
    >
      {s.rank}
      {s.tiedWith > 0 ? <span className="badge tied">tied</span> : null}
    </td>
  );
}

export function LeaderboardTable({ board }: { board: Leaderboard }) {
  const { focus } = board;
  const focusLabel = `${focus.workload} ${focus.distribution}, stable load at 80%`;
  return (
    <>
      <BoardChart board={board} />
      {board.rankedBy === "ratio" ? (
        <p className="muted" data-testid="ranked-by-ratio">
          These rows come from more than one campaign, measured on different days: absolute rates move with the machine, so the order is each system&apos;s
          ratio to {REFERENCE_TARGET} in the same rounds of its own campaign (with its interval), its median rate beside it.
        </p>
      ) : null}
      <form method="get" action="/compare" className="table-wrap">
        <table className="table" data-testid="leaderboard">
          <thead>
            <tr>
              <th title="pick the systems to compare (2 or more)">⇆</th>
              <th>#</th>
              <SortHeader board={board} sort="system" label="System" num={false} />
              <th>Environment</th>
              {board.rateKeys.map((k) => (
                <SortHeader
                  key={k}
                  board={board}
                  sort={k}
                  label={`${k.replace(".", " ")} (${rateUnit(k.split(".")[0]!)})`}
                  title={`${k}: sustainable rate (highest offered ${rateUnit(k.split(".")[0]!)} the system kept up with), ranked only when the knee is known to 10% or better; below it, the knee's resolution`}
                />
              ))}
              <SortHeader board={board} sort="p50" label="p50" title={focusLabel} />
              <SortHeader board={board} sort="p99" label="p99" title={focusLabel} />
              <SortHeader board={board} sort="errorRate" label="errors" title={focusLabel} />
              <SortHeader
                board={board}
                sort="throughputPerCore"
                label={`${rateUnit(focus.workload)} per core`}
                title={`${focusLabel}: successful ${rateUnit(focus.workload)} per core of the target`}
              />
              <SortHeader
                board={board}
                sort="anomalies"
                label="anomalies"
                title={`${focus.workload} ${focus.distribution}: consistency anomalies found by the audit`}
              />
              <SortHeader board={board} sort="loc" label="LOC" title="lines of code, application + gateway" />
              <SortHeader board={board} sort="rating" label="rating" title="mean of programming model and understandability (1-5)" />
            </tr>
          </thead>
          <tbody data-testid="ranked">
            {board.rows.map((row, i) => (
              <tr key={`${row.slug}:${row.environmentKind}:${row.nodes}`} data-system={row.slug}>
                <td>
                  <input type="checkbox" name="s" value={row.slug} aria-label={`compare ${row.name}`} />
                </td>
                <RankCell row={row} position={(board.page - 1) * PAGE_SIZE + i + 1} />
                <td>
                  <a href={`/systems/${encodeURIComponent(row.slug)}`}>{row.name}</a>
                  <VerifiedBadge verified={row.verified} />
                  <br />
                  <a href={`/runs/${row.runId}`} className="muted">{`${row.slug} ${row.version}`}</a>
                  <span className="muted" data-profile={row.profile}>{` · ${row.profile} profile`}</span>
                  <span className="muted" data-trials={row.trials}>
                    {row.campaignId
                      ? ` · campaign of ${row.trials} trial${row.trials === 1 ? "" : "s"}${row.busyTrials ? ` (${row.busyTrials} busy)` : ""}`
                      : " · single run"}
                  </span>
                  {row.versionCampaigns.length > 1 ? (
                    <span
                      className="muted"
                      data-version-campaigns={row.versionCampaigns.length}
                      title={`checkout uniform medians of every campaign of ${row.version} here, oldest first: ${row.versionCampaigns.map((c) => fmtRate(c.median)).join(", ")}`}
                    >
                      {` · the latest of ${row.versionCampaigns.length} campaigns of this version (checkout medians ${fmtRate(Math.min(...row.versionCampaigns.map((c) => c.median)))}–${fmtRate(Math.max(...row.versionCampaigns.map((c) => c.median)))})`}
                    </span>
                  ) : null}
                  <ImplementationBadge cls={row} />
                  {row.laterUnranked ? (
                    <>
                      <br />
                      <a href={`/runs/${row.laterUnranked.runId}`} className="invalid" data-later-unranked={row.laterUnranked.status}>
                        {`a later run (${row.laterUnranked.version}, ${fmtDate(row.laterUnranked.finishedAt)}) is not ranked: ${row.laterUnranked.reasons.join("; ")}`}
                      </a>
                    </>
                  ) : null}
                </td>
                <td>
                  {fmtEnvironment(row.environmentKind, row.nodes)}
                  {row.machineClass ? (
                    <>
                      <br />
                      <span className="muted" data-machine>
                        {row.machineClass}
                      </span>
                    </>
                  ) : null}
                </td>
                {board.rateKeys.map((k) => (
                  <RateCell key={k} row={row} k={k} />
                ))}
                <FocusCell row={row} metric="p50" format={fmtMs} />
                <FocusCell row={row} metric="p99" format={fmtMs} />
                <td className="num">{fmtPercent(row.focus?.errorRate)}</td>
                <FocusCell row={row} metric="throughputPerCore" format={(v) => fmtNumber(v)} />
                <td className="num">{fmtNumber(row.focus?.anomaliesTotal, 0)}</td>
                <td className="num" title={row.loc ? `app ${row.loc.app}, gateway ${row.loc.gateway}` : "not counted"}>
                  {row.loc ? fmtNumber(row.loc.app + row.loc.gateway, 0) : "—"}
                </td>
                <td
                  className="num"
                  title={
                    row.ratings
                      ? `programming model ${row.ratings.programmingModel.toFixed(1)}, understandability ${row.ratings.understandability.toFixed(1)}, ${row.ratings.count} ratings`
                      : undefined
                  }
                >
                  {row.ratings ? `${((row.ratings.programmingModel + row.ratings.understandability) / 2).toFixed(1)} (${row.ratings.count})` : "—"}
                </td>
              </tr>
            ))}
            {board.rows.length === 0 ? (
              <tr>
                <td colSpan={board.rateKeys.length + 11} className="muted">
                  No ranked runs match these filters.
                </td>
              </tr>
            ) : null}
          </tbody>
          {board.unranked.length > 0 ? (
            <tbody data-testid="unranked">
              <tr>
                <th colSpan={board.rateKeys.length + 11} style={{ textAlign: "left" }}>
                  Not ranked in this population: their latest run here failed, or has no ranked cell
                </th>
              </tr>
              {board.unranked.map((u) => (
                <tr key={`${u.slug}:${u.environmentKind}:${u.nodes}`} data-system={u.slug} data-unranked={u.status}>
                  <td />
                  <td className="muted">–</td>
                  <td>
                    <a href={`/systems/${encodeURIComponent(u.slug)}`}>{u.name}</a>
                    <br />
                    <a href={`/runs/${u.runId}`} className="muted">{`${u.slug} ${u.version}`}</a>
                    <span className="muted">{` · ${fmtDate(u.finishedAt)}`}</span>
                  </td>
                  <td>{fmtEnvironment(u.environmentKind, u.nodes)}</td>
                  <td colSpan={board.rateKeys.length + 7} className="muted" data-reasons>
                    {u.status === "failed" ? "failed: " : "not ranked: "}
                    {u.reasons.join("; ")}
                  </td>
                </tr>
              ))}
            </tbody>
          ) : null}
        </table>
        {board.rows.length > 1 ? (
          <>
            {Object.entries(populationParams(board)).map(([name, value]) => (
              <input key={name} type="hidden" name={name} value={value} />
            ))}
            <button type="submit" className="compare-button">
              Compare selected
            </button>{" "}
            <a
              href={compareHref([...new Set(board.rows.map((r) => r.slug))], undefined, board.filter.tuned, populationParams(board))}
              data-testid="compare-all"
            >
              compare every system on this page
            </a>
          </>
        ) : null}
      </form>
      {board.hiddenTuned > 0 ? (
        <p className="muted" data-testid="tuned-hidden">
          {`${board.hiddenTuned} row${board.hiddenTuned === 1 ? "" : "s"} of tuned implementations hidden (optimised for this benchmark): `}
          <a href={href(board.filter, { tuned: true, page: undefined })}>show tuned implementations</a>
        </p>
      ) : null}
      {board.smoke.length > 0 ? (
        <section data-testid="smoke-tests" className="muted" style={{ fontSize: 13, marginTop: 16 }}>
          <h2 style={{ fontSize: 15 }}>Recent smoke tests (not ranked)</h2>
          <p>
            Completed runs whose knee is not known to 10% (the quick profile&apos;s coarse steps, or a knee the search could not bracket): their numbers are on
            their run pages only.
          </p>
          <ul>
            {board.smoke.map((r) => (
              <li key={r.runId}>
                <a href={`/runs/${r.runId}`}>{`${r.name} (${r.slug} ${r.version})`}</a>
                {`, ${r.profile} profile, ${fmtDate(r.finishedAt)}`}
              </li>
            ))}
          </ul>
        </section>
      ) : null}
      {board.pages > 1 ? (
        <div className="pager">
          {board.page > 1 ? <a href={href(board.filter, { page: board.page - 1 })}>← previous</a> : null}
          <span className="muted">
            page {board.page} of {board.pages}
          </span>
          {board.page < board.pages ? <a href={href(board.filter, { page: board.page + 1 })}>next →</a> : null}
        </div>
      ) : null}
    </>
  );
}
